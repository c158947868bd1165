import { UnsupportedError } from '../core/errors.js';

/** `lattice-mimo detect`: placeholder until it lands. */
export async function run(_argv: string[]): Promise<number> {
  throw new UnsupportedError("'detect' is not implemented yet");
}
