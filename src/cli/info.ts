/** `lattice-mimo info`: the engines found on this machine (CPU always, with its kernels; CUDA where a device answers). */
import { availableParallelism, cpus } from 'node:os';
import { describeCpuKernels } from '../core/index.js';
import { describeCuda } from '../gpu/index.js';
import { parseCommandLine } from './args.js';

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(argv, { help: { type: 'boolean', short: 'h' } } as const, { command: 'info' });
  if (values.help) {
    process.stdout.write(
      'usage: lattice-mimo info\n\nLists the engines found: the CPU engine (cores; its kernels: WebAssembly SIMD or TypeScript, and why) and the CUDA device, driver and NVRTC version.\n',
    );
    return 0;
  }
  const model = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const lines = [
    `lattice-mimo on Node ${process.version} (${process.platform}-${process.arch})`,
    `cpu: ${availableParallelism()} threads, ${model}`,
    describeCpuKernels(),
    ...(await describeCuda()),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
