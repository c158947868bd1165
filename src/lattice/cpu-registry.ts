/** The CPU implementation of each algorithm (also the reference its GPU kernel is checked against). */
import type { Algorithm, CpuReducer } from './types.js';
import { lllCpu } from './lll/cpu.js';
import { allswapCpu } from './allswap/cpu.js';
import { blockCpu, crBlockCpu } from './block/cpu.js';
import { jacobiCpu } from './jacobi/cpu.js';
import { jacobiParallelCpu } from './jacobi-parallel/cpu.js';

export const CPU_REDUCERS: Readonly<Record<Algorithm, CpuReducer>> = {
  lll: lllCpu,
  allswap: allswapCpu,
  block: blockCpu,
  'cr-block': crBlockCpu,
  jacobi: jacobiCpu,
  'jacobi-parallel': jacobiParallelCpu,
};
