import { UnsupportedError } from '../../core/errors.js';
import type { CpuReducer } from '../types.js';

// Placeholders until the implementation lands.
export const blockCpu: CpuReducer = () => { throw new UnsupportedError('block is not implemented yet'); };
export const crBlockCpu: CpuReducer = () => { throw new UnsupportedError('cr-block is not implemented yet'); };
