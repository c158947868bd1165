import { UnsupportedError } from '../core/errors.js';

/** `lattice-mimo simulate`: placeholder until it lands. */
export async function run(_argv: string[]): Promise<number> {
  throw new UnsupportedError("'simulate' is not implemented yet");
}
