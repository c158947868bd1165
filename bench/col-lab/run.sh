#!/bin/bash
# A/B runs of the column-owner kernel on the device machine (bench/gpu-notes.md, its section), from the
# repository root after scripts/device-pack.sh (Node.js and dist/ for the inputs; run with carry
# [".device/main"]):
#   bash bench/col-lab/run.sh NAME=FLAGS ...   (FLAGS: comma-separated -D's; the first is the reference)
# builds the harness per variant for 68x64 block-Toeplitz and 64x64 Gaussian float32 (4096 bases each,
# seed 1), prints ptxas' spills, the time per basis and how many bases differ from the first variant's.
# Against an older kernel: put it in an untracked folder (it travels with the working tree), e.g.
#   mkdir -p bench/col-lab/old/allswap && git show REV:src/lattice/allswap/column-kernel.cu > bench/col-lab/old/allswap/column-kernel.cu
#   (and its headers: allswap-work.cuh, allswap-kernel.cuh beside it, ../lll-common.cuh above it)
# and name it as a variant: old=-Ibench/col-lab/old/allswap
# The measurement switches (COL_NO_SUPPORT, COL_NO_FASTDIV, COL_PROFILE) are in the measurement build
# (bench/kernels/traced.ts, tracedSource('column'): the production kernel, includes inlined, patched):
# write it as bench/col-lab/old/traced/column-kernel.cu and name it as a variant, e.g.
# noSupport=-Ibench/col-lab/old/traced,-DCOL_NO_SUPPORT=1
set -u
H=bench/col-lab
mkdir -p /tmp/col
source .device/main/env.sh >/dev/null 2>&1
export APP_DIST=/tmp/app/dist
node $H/gen.mjs toeplitz 64 4096 /tmp/col/toep.bin
node $H/gen.mjs gaussian 64 4096 /tmp/col/gauss.bin
COMMON="-arch=sm_90 -fmad=false -std=c++17 -DREAL=float -DCOL_SMEM=1 -DALLSWAP_THREADS=256 -DALLSWAP_MIN_BLOCKS=3 -I src/lattice/allswap"
for v in "$@"; do
  name=${v%%=*}; flags=${v#*=}; flags=${flags//,/ }
  # (a variant's -I goes ahead of the common include path, so that it can name another copy of the
  # kernel; its -D's go after the common ones, which they override)
  inc=$(for f in $flags; do case $f in -I*) echo -n "$f ";; esac; done)
  (nvcc $inc $COMMON -DCOL_N=68 $flags $H/harness.cu -o /tmp/col/t_$name -Xptxas -v > /tmp/col/t_$name.log 2>&1;
   nvcc $inc $COMMON -DCOL_N=64 $flags $H/harness.cu -o /tmp/col/g_$name > /dev/null 2>&1) &
done
wait
for v in "$@"; do name=${v%%=*}; echo "$name: $(grep -A2 "entry function 'allswap'" /tmp/col/t_$name.log | tail -2 | tr '\n' ' ')"; done
first=${1%%=*}
for fam in t g; do
  in=/tmp/col/toep.bin; [ $fam = g ] && in=/tmp/col/gauss.bin
  /tmp/col/${fam}_$first $in --save /tmp/col/ref_$fam.bin --reps 10 | sed "s/^/$fam $first: /"
  for v in "${@:2}"; do name=${v%%=*}; /tmp/col/${fam}_$name $in --ref /tmp/col/ref_$fam.bin --reps 10 | sed "s/^/$fam $name: /"; done
done
