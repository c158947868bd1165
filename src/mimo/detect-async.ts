/**
 * detectAsync(): detection on either engine, the one entry point for the GPU. The same input and
 * result as detect() (input arrays float64 or float32; the GPU engine's LLRs are float32).
 *
 *  - engine 'cpu': detect() on the CPU engine (float64);
 *  - engine 'cuda': the detector's CUDA implementation (float32); an EngineUnavailableError when no
 *    device answers or the detector has none;
 *  - engine 'auto' (default): the GPU where a device and the detector's CUDA implementation are
 *    there, else the CPU (the package's one chooser, gpu/engine.ts).
 */
import { InvalidArgumentError, InvalidInputError } from '../core/index.js';
import { chooseEngine } from '../gpu/index.js';
import { checkFinite, detectCpu, validateDetection } from './detect.js';
import type { CudaDetector } from './gpu/cuda-detector.js';
import type { DetectOutputs } from './gpu/detect-batch.js';
import { constellation } from './modulation.js';
import { detectorEntry } from './registry.js';
import type { DetectionInput, DetectionResult, DetectOptions } from './types.js';

/**
 * Batched detection on the engine opts.engine names (see the file comment). `out` arrays, when
 * given, receive the results on either engine (pinned ones from allocPinned are written by the
 * GPU's copy engine without a staging copy) and are the arrays the result holds.
 */
export async function detectAsync(
  input: DetectionInput,
  opts: DetectOptions,
  out?: DetectOutputs,
): Promise<DetectionResult> {
  const t0 = performance.now();
  // everything but the scan of H and y for NaN and infinities, which depends on the engine
  const val = validateDetection(input, opts, 'defer', 'detectAsync()');
  checkOutputs(out, val.vectors, val.nt, constellation(val.opts.modulation).bitsPerSymbol);
  const entry = detectorEntry(val.opts.detector)!;
  const { engine } = await chooseEngine({
    asked: val.opts.engine,
    call: `detect (${val.opts.detector})`,
    gpuGap: () =>
      !entry.cuda
        ? `the '${val.opts.detector}' detector has no CUDA implementation`
        : input.priorLlr !== undefined && entry.traits.priors === 'cpu'
          ? `the '${val.opts.detector}' detector's CUDA kernel takes no a-priori LLRs (priorLlr)`
          : null,
  });
  // the CPU engine scans H and y itself, first (in one read with its copies where a kernel runs)
  if (engine === 'cpu') return intoOutputs(detectCpu(input, val, t0, 'unscanned'), out);
  const gpuScans = engine === 'cuda' && input.H instanceof Float32Array && input.y instanceof Float32Array;
  if (!gpuScans) {
    checkFinite(input.H, 'H');
    checkFinite(input.y, 'y');
  }
  const impl = cudaImpls.get(val.opts.detector) ?? (await loadCuda(val.opts.detector, entry.cuda!));
  engineModule ??= await import('./gpu/detect-batch.js');
  return engineModule.detectCuda(input, val, impl, t0, out);
}

/** SHAPE_MISMATCH when a given output array is not an array of the right kind or is too short. */
function checkOutputs(out: DetectOutputs | undefined, vectors: number, nt: number, bps: number): void {
  if (out === undefined) return;
  if (out === null || typeof out !== 'object') {
    throw new InvalidArgumentError('out must be an object { symbols?: Int32Array, llr?: Float32Array }', {
      option: 'out',
    });
  }
  const want: [string, unknown, Int32ArrayConstructor | Float32ArrayConstructor, number][] = [
    ['symbols', out.symbols, Int32Array, vectors * nt],
    ['llr', out.llr, Float32Array, vectors * nt * bps],
  ];
  for (const [name, a, kind, length] of want) {
    if (a === undefined) continue;
    if (!(a instanceof kind)) {
      throw new InvalidArgumentError(`out.${name} must be a ${kind.name}`, { option: `out.${name}` });
    }
    if ((a as Int32Array | Float32Array).length < length) {
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `out.${name} holds ${(a as Int32Array).length} entries, the batch needs ${length}`,
        { option: `out.${name}`, length: (a as Int32Array).length, needed: length },
      );
    }
  }
}

/** The CPU engine's result written into the caller's output arrays, which the result then holds. */
function intoOutputs(r: DetectionResult, out: DetectOutputs | undefined): DetectionResult {
  if (!out) return r;
  let { symbols, llr } = r;
  if (out.symbols) {
    out.symbols.set(r.symbols);
    symbols = out.symbols.subarray(0, r.symbols.length);
  }
  if (out.llr && r.llr) {
    out.llr.set(r.llr);
    llr = out.llr.subarray(0, r.llr.length);
  }
  return { ...r, symbols, ...(llr ? { llr } : {}) };
}

/** Loaded CUDA implementations and the GPU engine's module: a call per batch need not import them again. */
const cudaImpls = new Map<string, CudaDetector>();
let engineModule: typeof import('./gpu/detect-batch.js') | null = null;

async function loadCuda(name: string, load: () => Promise<CudaDetector>): Promise<CudaDetector> {
  const impl = await load();
  cudaImpls.set(name, impl);
  return impl;
}
