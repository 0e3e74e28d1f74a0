#!/usr/bin/env bash
# Side by side on one thread: kempe_bench_dg built with dg_K.hpp before (old, commit eced803) and after (new)
# FaceIntegrals::integrate, atomic and buffered (the strategies whose CPU path sums one face at a time), then
# the new binary's colored strategy with the grid ordered by color_renumber, rcm and hilbert.
cd /tmp/ct
for round in 1 2 3; do
  for s in atomic buffered; do
    for t in old new; do
      echo "## round $round $t $s"
      OMP_NUM_THREADS=1 OMP_PROC_BIND=close ./bench_$t 300 9 strategies $s | grep "^| [1-5] "
    done
  done
done
for round in 1 2 3; do
  for o in color_renumber rcm hilbert; do
    echo "## round $round ordering $o colored"
    KEMPE_BENCH_ORDERING=$o OMP_NUM_THREADS=1 OMP_PROC_BIND=close ./bench_new 300 9 strategies colored | grep "^| [1-5] "
  done
done
