/**
 * A host-side trace of CUDA driver calls, for benchmarks only: wraps each function of a context's
 * driver table so that every call records its name, start and duration (performance.now, about
 * 0.05 us of its own a call). What a call of the library spends in the driver, call by call,
 * beside what it spends in JavaScript between them.
 */
import type { CudaContext } from '../../src/gpu/context.js';

export interface DriverCall { name: string; startMs: number; ms: number; result: unknown }

export interface DriverTrace {
  /** Starts recording (clears what was recorded). */
  start(): void;
  /** Stops recording and returns the calls recorded since start(). */
  stop(): DriverCall[];
}

/** Installs the wrappers on ctx.driver (once; they record only between start() and stop()). */
export function traceDriver(ctx: CudaContext): DriverTrace {
  const table = ctx.driver as unknown as Record<string, unknown>;
  let calls: DriverCall[] = [];
  let on = false;
  for (const [name, f] of Object.entries(table)) {
    if (typeof f !== 'function') continue;
    const fn = f as (...a: unknown[]) => unknown;
    table[name] = (...args: unknown[]): unknown => {
      if (!on) return fn(...args);
      const t = performance.now();
      const result = fn(...args);
      calls.push({ name, startMs: t, ms: performance.now() - t, result });
      return result;
    };
  }
  return {
    start() { calls = []; on = true; },
    stop() { on = false; return calls; },
  };
}

/** Per driver function: calls and total milliseconds, most time first. */
export function summarizeCalls(calls: readonly DriverCall[]): Array<{ name: string; count: number; ms: number }> {
  const by = new Map<string, { count: number; ms: number }>();
  for (const c of calls) {
    const s = by.get(c.name) ?? { count: 0, ms: 0 };
    s.count++; s.ms += c.ms;
    by.set(c.name, s);
  }
  return [...by].map(([name, s]) => ({ name, ...s })).sort((a, b) => b.ms - a.ms);
}
