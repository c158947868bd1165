/**
 * A host-side trace of CUDA driver calls, for benchmarks only: wraps each function of a context's
 * driver table so that every call records its name, start and duration (performance.now, about
 * 0.05 us of its own a call). What a call of the library spends in the driver, call by call,
 * beside what it spends in JavaScript between them.
 */
import type { CudaContext } from '../../src/gpu/context.js';
import { CudaEvent } from '../../src/gpu/stream.js';

export interface DriverCall {
  name: string;
  startMs: number;
  ms: number;
  result: unknown;
}

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
    start() {
      calls = [];
      on = true;
    },
    stop() {
      on = false;
      return calls;
    },
  };
}

/** Per driver function: calls and total milliseconds, most time first. */
export function summarizeCalls(calls: readonly DriverCall[]): Array<{ name: string; count: number; ms: number }> {
  const by = new Map<string, { count: number; ms: number }>();
  for (const c of calls) {
    const s = by.get(c.name) ?? { count: 0, ms: 0 };
    s.count++;
    s.ms += c.ms;
    by.set(c.name, s);
  }
  return [...by].map(([name, s]) => ({ name, ...s })).sort((a, b) => b.ms - a.ms);
}

/** Driver functions that enqueue work on a stream, and the index of their stream argument. */
const STREAM_ARG: Record<string, number> = {
  cuMemcpyHtoDAsync: 3,
  cuMemcpyDtoHAsync: 3,
  cuMemcpyDtoDAsync: 3,
  cuMemsetD8Async: 3,
  cuLaunchKernel: 8,
  cuLaunchCooperativeKernel: 8,
};

export interface DeviceOp {
  name: string;
  /** The stream's handle, as a small number in order of first use. */
  lane: number;
  /** Host time of the enqueue, ms from the first traced enqueue. */
  hostMs: number;
  /** Device time at which the op had finished (an event recorded after it), ms from an event before the first op. */
  doneMs: number;
}

export interface DeviceTimeline {
  start(): void;
  /** Waits for the recorded events and returns the ops enqueued since start(). */
  stop(): DeviceOp[];
}

/**
 * A device-side timeline: after every op enqueued on a stream (copies, memsets, launches) an event
 * is recorded on that stream, so each op's finish time on the device is known. The events add
 * about a microsecond each to the device's queue: a picture of where the time goes, not a timing.
 * Install it after traceDriver, if both (it wraps what is in the table).
 */
export function timelineDriver(ctx: CudaContext, capacity = 512): DeviceTimeline {
  const table = ctx.driver as unknown as Record<string, (...a: unknown[]) => unknown>;
  const record = table.cuEventRecord!,
    elapsed = table.cuEventElapsedTime!,
    sync = table.cuEventSynchronize!;
  const events = Array.from({ length: capacity + 1 }, () => CudaEvent.create(ctx, true).handle);
  let on = false,
    used = 0,
    t0 = 0;
  let ops: Array<{ name: string; stream: unknown; hostMs: number }> = [];
  for (const [name, arg] of Object.entries(STREAM_ARG)) {
    const fn = table[name];
    if (typeof fn !== 'function') continue;
    table[name] = (...args: unknown[]): unknown => {
      if (!on || used >= capacity) return fn(...args);
      const stream = args[arg];
      if (used === 0) {
        record(events[capacity], stream);
        t0 = performance.now();
      }
      const result = fn(...args);
      record(events[used++], stream);
      ops.push({ name, stream, hostMs: performance.now() - t0 });
      return result;
    };
  }
  return {
    start() {
      ops = [];
      used = 0;
      on = true;
    },
    stop() {
      on = false;
      const lanes = new Map<unknown, number>();
      const ms = new Float32Array(1);
      return ops.map((o, i) => {
        sync(events[i]);
        elapsed(ms, events[capacity], events[i]);
        if (!lanes.has(String(o.stream))) lanes.set(String(o.stream), lanes.size);
        return { name: o.name, lane: lanes.get(String(o.stream))!, hostMs: o.hostMs, doneMs: ms[0]! };
      });
    },
  };
}
