#!/usr/bin/env bash
# Builds kempe_bench_gpu twice more after scripts/gpu-prebuild, with the colored and atomic face passes
# (face_pass_shape, kernels/dg_K.hpp) asked to fit B blocks of 128 threads per multiprocessor at p = 1 and 2 in
# double, and the elementwise pass (element_pass_shape) B at p = 1 in double, for B = 5 and 6; packs them as
# build-gpu/variants.tar.xz (bin/kempe_bench_gpu_v5, _v6). Run from the repository root after scripts/gpu-prebuild has
# packed build-gpu/carry.tar.xz: build-gpu/bin/kempe_bench_gpu is left as the last variant.
set -euo pipefail
for blocks in 5 6; do
  cp kernels/dg_K.hpp /tmp/dg_K.hpp.orig
  python3 - "$blocks" <<'PY'
import sys
b = sys.argv[1]
p = 'kernels/dg_K.hpp'
s = open(p).read()
a = '''constexpr PassShape face_pass_shape() {
  return {128, 1};'''
assert a in s
s = s.replace(a, '''constexpr PassShape face_pass_shape() {
  if (P >= 1 && P <= 2 && sizeof(Real) == sizeof(double)) return {128, %s};
  return {128, 1};''' % b)
a = '''  if (P == 1 && is_double) return {128, 4};'''
assert a in s
s = s.replace(a, '''  if (P == 1 && is_double) return {128, %s};''' % b)
open(p, 'w').write(s)
PY
  cmake --build build-gpu -j2 --target kempe_bench_gpu
  cp build-gpu/bin/kempe_bench_gpu "build-gpu/bin/kempe_bench_gpu_v$blocks"
  strip --strip-unneeded "build-gpu/bin/kempe_bench_gpu_v$blocks"
  cp /tmp/dg_K.hpp.orig kernels/dg_K.hpp
done
tar -C build-gpu -cf - bin/kempe_bench_gpu_v5 bin/kempe_bench_gpu_v6 | xz -9 -T2 > build-gpu/variants.tar.xz
ls -l build-gpu/variants.tar.xz
