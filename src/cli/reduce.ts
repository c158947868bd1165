import { UnsupportedError } from '../core/errors.js';

export async function run(_argv: string[]): Promise<number> {
  throw new UnsupportedError("'reduce' is not implemented yet");
}
