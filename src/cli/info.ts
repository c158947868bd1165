/** `lattice-mimo info`: placeholder until the engine probe lands. */
export async function run(_argv: string[]): Promise<number> {
  process.stdout.write('engines: cpu\n');
  return 0;
}
