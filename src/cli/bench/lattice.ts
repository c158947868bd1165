import { UnsupportedError } from '../../core/errors.js';

/** `lattice-mimo bench lattice`: placeholder until the GPU engine lands. */
export async function run(_argv: string[]): Promise<number> {
  throw new UnsupportedError("'bench lattice' is not implemented yet");
}
