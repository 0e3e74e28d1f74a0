#!/bin/bash
# usage: cmp2.sh TAG THREADS ROUNDS MESH(or -) binA binB ; raw rows go to /tmp/cmp2_TAG.txt
tag=$1; th=$2; rounds=$3; mesh=$4; shift 4
out=/tmp/cmp2_$tag.txt
for r in $(seq $rounds); do for b in "$@"; do
  if [ "$mesh" = "-" ]; then m=""; else m=$mesh; fi
  KEMPE_BENCH_MESH=$m OMP_NUM_THREADS=$th OMP_PROC_BIND=close /tmp/bench_$b 300 9 strategies colored 2>&1 | grep "^| [1-5] " | sed "s/^/$b round$r /" >> $out
done; done
for b in "$@"; do echo -n "$b stage:"; for p in 1 2 3 4 5; do awk -F'|' -v b="$b round" -v p=$p 'index($1,b)==1 && $2+0==p {if(m==""||$8<m)m=$8+0} END{printf " %s", m}' $out; done; echo -n "  surface:"; for p in 1 2 3 4 5; do awk -F'|' -v b="$b round" -v p=$p 'index($1,b)==1 && $2+0==p {if(m==""||$10<m)m=$10+0} END{printf " %s", m}' $out; done; echo; done
