import { UnsupportedError } from '../core/errors.js';

/** `lattice-mimo demo`: placeholder until it lands. */
export async function run(_argv: string[]): Promise<number> {
  throw new UnsupportedError("'demo' is not implemented yet");
}
