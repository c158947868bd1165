#!/bin/bash
# After run.sh, on the device machine: bash bench/col-lab/prof.sh NAME=FLAGS ...: block 0's cycles per
# section (COL_PROFILE) on the 68x64 block-Toeplitz batch, and Nsight Compute's details and per-SASS
# source counters of one launch into $OUT.
set -u
H=bench/col-lab
BASE="-arch=sm_90 -fmad=false -std=c++17 -DREAL=float -DCOL_N=68 -DCOL_SMEM=1 -DALLSWAP_THREADS=256 -DALLSWAP_MIN_BLOCKS=3 -I src/lattice/allswap"
for v in "$@"; do
  name=${v%%=*}; flags=${v#*=}; flags=${flags//,/ }
  (nvcc $BASE $flags -DCOL_PROFILE=1 $H/harness.cu -o /tmp/col/p_$name > /dev/null 2>&1;
   nvcc $BASE $flags -lineinfo $H/harness.cu -o /tmp/col/n_$name > /dev/null 2>&1) &
done
wait
for v in "$@"; do name=${v%%=*}; /tmp/col/p_$name /tmp/col/toep.bin --reps 1 | grep COLPROF | head -1 | sed "s/^/$name: /"; done
for v in "$@"; do
  name=${v%%=*}
  ncu --clock-control none --set full --import-source yes -k allswap -s 2 -c 1 -f -o /tmp/col/ncu_$name /tmp/col/n_$name /tmp/col/toep.bin --reps 1 > /tmp/col/ncu_$name.log 2>&1 || tail -5 /tmp/col/ncu_$name.log
  ncu -i /tmp/col/ncu_$name.ncu-rep --page details > $OUT/ncu_${name}_details.txt 2>&1
  ncu -i /tmp/col/ncu_$name.ncu-rep --page source --csv --print-source sass > $OUT/ncu_${name}_sass.csv 2>$OUT/ncu_${name}_sass.err
  cp /tmp/col/ncu_$name.ncu-rep $OUT/ 2>/dev/null
done
