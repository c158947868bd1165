/**
 * The one engine chooser of the package. Every part (reduce, detect, decode, simulate) asks here,
 * so the three requests mean the same everywhere:
 *  - 'cpu': the CPU engine, always;
 *  - 'cuda': the CUDA engine, or an EngineUnavailableError that says why not (no device, or no GPU
 *    implementation of this request): never a silent fallback;
 *  - 'auto' (the default): the CUDA engine where the part can run the request on it and a device
 *    answers, else the CPU engine.
 * The device probe is cudaAvailable() (context.ts): it loads no native code on a machine without
 * an NVIDIA driver, and a request the part cannot run on the GPU never probes at all.
 */
import { EngineUnavailableError, InvalidArgumentError, show } from '../core/index.js';
import { cudaAvailable } from './context.js';

/** What a call may ask for. */
export const ENGINE_REQUESTS = ['auto', 'cpu', 'cuda'] as const;
/** An engine request: 'auto' (default), 'cpu' or 'cuda'. */
export type EngineRequest = (typeof ENGINE_REQUESTS)[number];
/** The engine that runs a call. */
export type EngineName = 'cpu' | 'cuda';

/** The engine chosen for a call, and why (for tables, logs and the CLI's first line). */
export interface EngineDecision {
  readonly engine: EngineName;
  readonly reason: string;
}

/** A validated engine request (undefined: 'auto'); InvalidArgumentError naming `what` otherwise. */
export function checkEngineRequest(v: unknown, what = 'engine'): EngineRequest {
  if (v === undefined) return 'auto';
  if (typeof v !== 'string' || !(ENGINE_REQUESTS as readonly string[]).includes(v)) {
    throw new InvalidArgumentError(`${what} must be one of ${ENGINE_REQUESTS.join(', ')}, got ${show(v)}`, {
      option: what,
    });
  }
  return v as EngineRequest;
}

/** What a part tells the chooser about one request. */
export interface EngineQuestion {
  /** The engine asked for (validated here). */
  readonly asked: unknown;
  /** The call, for messages: "reduce (allswap)", "detect (nway)", "simulate". */
  readonly call: string;
  /**
   * Why the part cannot run this request on the CUDA engine (a sentence), or null when it can.
   * Asked before the device is probed, so a request with no GPU path loads no CUDA binding.
   */
  readonly gpuGap: () => string | null | Promise<string | null>;
}

/** The engine for a request (see the file comment); EngineUnavailableError when 'cuda' cannot be had. */
export async function chooseEngine(q: EngineQuestion): Promise<EngineDecision> {
  const asked = checkEngineRequest(q.asked);
  if (asked === 'cpu') return { engine: 'cpu', reason: 'asked for' };
  const gap = await q.gpuGap();
  if (gap !== null) {
    if (asked === 'cuda') {
      throw new EngineUnavailableError(`${q.call}: the CUDA engine cannot run it: ${gap}; use engine 'cpu' or 'auto'`, {
        call: q.call,
        cause: 'no-gpu-implementation',
        why: gap,
      });
    }
    return { engine: 'cpu', reason: `auto: ${gap}` };
  }
  const device = cudaAvailable();
  if (device.ok) return { engine: 'cuda', reason: asked === 'auto' ? `auto: ${device.device.name}` : 'asked for' };
  if (asked === 'cuda') {
    throw new EngineUnavailableError(
      `${q.call}: the CUDA engine was asked for but is not available: ${device.reason}`,
      { call: q.call, cause: 'no-device', why: device.reason },
    );
  }
  return { engine: 'cpu', reason: `auto: no CUDA device (${device.reason})` };
}

/**
 * The engine of a synchronous call, which runs on the CPU engine only: 'cpu' and 'auto' give it;
 * 'cuda' is an EngineUnavailableError that names the asynchronous call to use instead.
 */
export function cpuOnlyEngine(asked: unknown, call: string, asyncCall: string): EngineDecision {
  const a = checkEngineRequest(asked);
  if (a === 'cuda') {
    throw new EngineUnavailableError(`${call} runs the CPU engine only; for engine 'cuda' call ${asyncCall}`, {
      call,
      cause: 'synchronous-call',
    });
  }
  return { engine: 'cpu', reason: a === 'cpu' ? 'asked for' : `auto: ${call} is synchronous` };
}
