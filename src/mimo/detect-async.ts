/**
 * detectAsync(): detection on either engine, the one entry point for the GPU. The same input and
 * result as detect() (input arrays float64 or float32; the GPU engine's LLRs are float32).
 *
 *  - engine 'cpu': detect() on the CPU engine (float64).
 *  - engine 'cuda': the detector's CUDA implementation (float32); an EngineUnavailableError when no
 *    device answers or the detector has none.
 *  - engine 'auto' (default): the GPU where a device and the detector's CUDA implementation are
 *    there, else the CPU.
 */
import { EngineUnavailableError } from '../core/errors.js';
import { detectCpu, validateDetection } from './detect.js';
import type { CudaDetector } from './gpu/cuda-detector.js';
import type { DetectOutputs } from './gpu/detect-batch.js';
import { DETECTOR_REGISTRY, type DetectorEntry } from './registry.js';
import type { DetectionInput, DetectionResult, DetectOptions } from './types.js';

let device: Promise<{ ok: true } | { ok: false; reason: string }> | null = null;

/** Whether a CUDA device answers (asked once; never throws). */
function cudaDevice(): Promise<{ ok: true } | { ok: false; reason: string }> {
  device ??= import('../gpu/context.js').then(
    ({ cudaAvailable }) => {
      const a = cudaAvailable();
      return a.ok ? { ok: true as const } : { ok: false as const, reason: a.reason };
    },
    (e: unknown) => ({ ok: false as const, reason: (e as Error).message }),
  );
  return device;
}

/**
 * Batched detection on the engine opts.engine names (see the file comment). `out` arrays receive
 * the GPU engine's results when long enough (pinned ones from allocPinned without a staging copy).
 */
export async function detectAsync(
  input: DetectionInput,
  opts: DetectOptions,
  out?: DetectOutputs,
): Promise<DetectionResult> {
  const t0 = performance.now();
  const engine = opts?.engine ?? 'auto';
  // where it will run decides whether H and y are scanned here or by the GPU's normalize kernel
  const dev = engine === 'cpu' ? null : await cudaDevice();
  const entry = DETECTOR_REGISTRY[opts?.detector] as DetectorEntry | undefined;
  const loadCudaImpl = dev?.ok === true ? entry?.cuda : undefined;
  const gpuInput = input?.H instanceof Float32Array && input?.y instanceof Float32Array;
  const val = validateDetection(input, opts, loadCudaImpl && gpuInput ? 'defer' : 'check');
  if (!loadCudaImpl) {
    if (engine === 'cuda') {
      throw new EngineUnavailableError(
        dev?.ok === false
          ? `the CUDA engine was asked for but is not available: ${dev.reason}`
          : `the CUDA engine has no '${val.opts.detector}' detector; use engine 'cpu' or 'auto'`,
      );
    }
    return detectCpu(input, val, t0);
  }
  const impl = cudaImpls.get(val.opts.detector) ?? (await loadCuda(val.opts.detector, loadCudaImpl));
  engineModule ??= await import('./gpu/detect-batch.js');
  return engineModule.detectCuda(input, val, impl, t0, out);
}

/** Loaded CUDA implementations and the GPU engine's module: a call per batch need not import them again. */
const cudaImpls = new Map<string, CudaDetector>();
let engineModule: typeof import('./gpu/detect-batch.js') | null = null;

async function loadCuda(name: string, load: () => Promise<CudaDetector>): Promise<CudaDetector> {
  const impl = await load();
  cudaImpls.set(name, impl);
  return impl;
}
