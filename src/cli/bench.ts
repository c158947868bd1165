import { UnsupportedError } from '../core/errors.js';

/** `lattice-mimo bench`: placeholder until it lands. */
export async function run(_argv: string[]): Promise<number> {
  throw new UnsupportedError("'bench' is not implemented yet");
}
