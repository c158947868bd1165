/**
 * For the device tests of the GPU link's redo paths: a detector's CUDA implementation wrapped so
 * that after each detection every `every()`-th vector of a launch (those at index 3 mod every) is
 * flagged FLOAT32_UNSAFE, which the executor then answers on the CPU. `every()` is read at each
 * launch (0: none flagged).
 */
import { loadModule } from '../../src/gpu/module-cache.js';
import { DETECTOR_REGISTRY, type DetectorEntry } from '../../src/mimo/registry.js';

const FLAG_KERNEL =
  'extern "C" __global__ void flag_every(int* status, int vectors, int every) { const int g = blockIdx.x * 128 + threadIdx.x; if (every > 0 && g < vectors && g % every == 3) status[2 * g] |= 16; }';

/** Wraps `detector`'s CUDA entry in the registry; the returned function puts the original back. */
export function injectFlags(detector: string, every: () => number): () => void {
  const reg = DETECTOR_REGISTRY as Record<string, DetectorEntry>;
  const entry = reg[detector]!;
  reg[detector] = {
    ...entry,
    cuda: async () => {
      const real = (await entry.cuda!())!;
      return {
        ...real,
        create(ctx, setup) {
          const plan = real.create(ctx, setup);
          const k = loadModule(ctx, { source: FLAG_KERNEL, name: 'flag-every.cu' }).kernel('flag_every', [
            'ptr',
            'i32',
            'i32',
          ]);
          return {
            scratchBytesPerChannel: plan.scratchBytesPerChannel,
            enqueue(stream, chunk) {
              plan.enqueue(stream, chunk);
              const vectors = chunk.channels * chunk.vectorsPerChannel;
              k.launch({ grid: Math.ceil(vectors / 128), block: 128, stream }, [chunk.status, vectors, every()]);
            },
          };
        },
      };
    },
  };
  return () => {
    reg[detector] = entry;
  };
}
