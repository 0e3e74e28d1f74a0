#!/usr/bin/env bash
# bitwise.sh BEFORE AFTER RUNS: VTU files of each run compared byte for byte
before=$1 after=$2 list=$3
grep -v '^\s*\(#\|$\)' "$list" | while IFS='|' read -r name threads args; do
  for w in before after; do
    bin=$before; [[ $w == after ]] && bin=$after
    rm -rf /tmp/bw_$w; OMP_NUM_THREADS=$threads $bin run $args --output /tmp/bw_$w > /tmp/bw_$w.log 2>&1 || { echo "$name $w failed"; tail -3 /tmp/bw_$w.log; }
  done
  n=0 same=0
  for f in /tmp/bw_after/*.vtu; do n=$((n+1)); cmp -s "$f" "/tmp/bw_before/$(basename "$f")" && same=$((same+1)); done
  echo "$name: $same of $n VTU files identical"
done
