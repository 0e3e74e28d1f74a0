#!/usr/bin/env bash
# What the GPU's DG kernels ask of each thread, without a GPU: compiles each kernel for sm_90 alone (one launch
# of its functor as forall launches it, double precision, the cases' boundary functor bc::GroupBoundary) under
# each launch shape THREADSxBLOCKS (__launch_bounds__(THREADS, BLOCKS): at least BLOCKS blocks of THREADS threads
# resident per SM, which caps the registers at 65,536 / (THREADS x BLOCKS)) and prints ptxas's registers, stack
# frame and spill stores per order and flux. forall's default shape is 128x1 (kernels/backend.hpp).
# Usage: bench/registers.sh [ORDERS] [FLUXES] [SHAPES]   e.g. bench/registers.sh "1 2 3" "hll rusanov" "128x1 128x4"
# Environment: NVCC (default nvcc), KEMPE_CUDA_ARCH (default 90).
set -euo pipefail
orders=${1:-1 2 3 4 5}
fluxes=${2:-hll}
shapes=${3:-128x1 128x4}
nvcc=${NVCC:-nvcc}
arch=${KEMPE_CUDA_ARCH:-90}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kernels=(
  "colored face pass|dg::EvalSurface<P, double, euler::Flux::F, false, bc::GroupBoundary<double>>"
  "atomic face pass|dg::EvalSurface<P, double, euler::Flux::F, true, bc::GroupBoundary<double>>"
  "buffered face pass|dg::EvalSurfaceBuffered<P, double, euler::Flux::F, bc::GroupBoundary<double>>"
  "elementwise pass|dg::EvalElement<P, double, euler::Flux::F, bc::GroupBoundary<double>>"
)
echo "| kernel | p | flux | shape | registers | stack frame (bytes) | spill stores (bytes) |"
echo "|---|---|---|---|---|---|---|"
for entry in "${kernels[@]}"; do
  name=${entry%%|*}
  for flux in $fluxes; do
    for p in $orders; do
      for shape in $shapes; do
        type=${entry#*|}
        type=${type//<P,/<$p,}
        type=${type//Flux::F/Flux::$flux}
        cat > "$work/kernel.cu" <<EOF
#include "kernels/boundary_K.hpp"
#include "kernels/dg_K.hpp"
using namespace kempe;
__global__ void __launch_bounds__(${shape%x*}, ${shape#*x}) run($type functor, index_t n) {
  const index_t i = index_t(blockIdx.x) * index_t(blockDim.x) + index_t(threadIdx.x);
  if (i < n) functor(i);
}
EOF
        info=$("$nvcc" -DKEMPE_HAVE_CUDA=1 -I"$root" -O3 -std=c++17 --expt-relaxed-constexpr --extended-lambda \
          -arch=sm_"$arch" -Xptxas -v -c "$work/kernel.cu" -o "$work/kernel.o" 2>&1 | grep -A2 "properties for _Z3run")
        registers=$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' <<< "$info")
        stack=$(sed -n 's/^ *\([0-9]*\) bytes stack frame.*/\1/p' <<< "$info")
        spills=$(sed -n 's/.*stack frame, \([0-9]*\) bytes spill stores.*/\1/p' <<< "$info")
        echo "| $name | $p | $flux | $shape | $registers | $stack | $spills |"
      done
    done
  done
done
