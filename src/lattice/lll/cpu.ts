import { UnsupportedError } from '../../core/errors.js';
import type { CpuReducer } from '../types.js';

// Placeholder until the implementation lands.
export const lllCpu: CpuReducer = () => { throw new UnsupportedError('lll is not implemented yet'); };
