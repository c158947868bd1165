/**
 * The CPU engine's WebAssembly kernel layer, domain-free: whether this runtime has WebAssembly SIMD,
 * which kernel a CPU call runs ('wasm-simd' or the TypeScript reference), and the compiled modules
 * (each a .wasm built by `npm run build` beside the host code that loads it; no native code). A
 * part's host module lays out the memory and calls the kernels; the TypeScript implementation of
 * the same arithmetic stays the reference and the fallback.
 *
 * The fallback is forced by a call's option (`cpuKernel: 'typescript'`) or, for a whole process, by
 * the environment variable LATTICE_MIMO_WASM=off (tests run CI's suite both ways with it).
 */
import { readFileSync } from 'node:fs';
import { EngineUnavailableError } from './errors.js';

/** The kernel that ran a CPU call: WebAssembly SIMD (v128 lanes) or the TypeScript reference. */
export type CpuKernel = 'wasm-simd' | 'typescript';

/** What a call asks for: the WebAssembly kernel where the runtime has SIMD ('auto'), it or an error ('wasm'), or the TypeScript one. */
export type CpuKernelRequest = 'auto' | 'wasm' | 'typescript';

/** Every {@link CpuKernelRequest}. */
export const CPU_KERNEL_REQUESTS: readonly CpuKernelRequest[] = ['auto', 'wasm', 'typescript'];

/** The environment variable that turns the WebAssembly kernels off for 'auto' (values off, 0, false, no). */
export const WASM_ENV = 'LATTICE_MIMO_WASM';

/**
 * The smallest module using a SIMD instruction: `(func (result v128) i32.const 0 i8x16.splat
 * i8x16.popcnt)`. WebAssembly.validate says whether the runtime decodes it, without running anything.
 */
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

/** The part of the WebAssembly JavaScript API the kernels use (typed here: the project's lib has no DOM types). */
interface WebAssemblyApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
}

/** The runtime's WebAssembly, where it has one. */
const api = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;

let simd: boolean | undefined;

/** Whether this runtime runs WebAssembly with the 128-bit SIMD proposal (checked once). */
export function wasmSimdSupported(): boolean {
  if (simd === undefined) {
    try {
      simd = api?.validate(SIMD_PROBE) === true;
    } catch {
      simd = false;
    }
  }
  return simd;
}

/** Whether LATTICE_MIMO_WASM turns the WebAssembly kernels off (read at each call, so tests can set it). */
export function wasmDisabledByEnvironment(): boolean {
  const v = process.env[WASM_ENV]?.trim().toLowerCase();
  return v === 'off' || v === '0' || v === 'false' || v === 'no';
}

/** Why 'auto' runs TypeScript here, or null where it runs the WebAssembly kernels. */
export function wasmUnavailableReason(): string | null {
  if (wasmDisabledByEnvironment()) return `${WASM_ENV}=${process.env[WASM_ENV]} turns the WebAssembly kernels off`;
  if (!wasmSimdSupported()) return 'this runtime has no WebAssembly SIMD';
  return null;
}

/**
 * The kernel a request runs: 'auto' gives 'wasm-simd' unless wasmUnavailableReason() says why not;
 * 'wasm' gives it or an EngineUnavailableError naming the reason (never a silent fallback);
 * 'typescript' gives 'typescript'. `call` names the caller in the error.
 */
export function pickCpuKernel(request: CpuKernelRequest, call: string): CpuKernel {
  if (request === 'typescript') return 'typescript';
  const why = wasmUnavailableReason();
  if (why === null) return 'wasm-simd';
  if (request === 'wasm')
    throw new EngineUnavailableError(`${call}: cpuKernel 'wasm' asked for, and ${why}`, { cause: why });
  return 'typescript';
}

/** A kernel module instantiated on its own memory: its exports (functions taking byte offsets) and the memory's bytes. */
export interface WasmKernelInstance<Exports> {
  /** The module's exported functions. */
  readonly exports: Exports;
  /** The instance's whole memory (fixed size: it never grows, so views on it stay valid). */
  readonly buffer: ArrayBuffer;
}

const modules = new Map<string, object>();

/**
 * Instantiates a kernel file (a URL beside the caller, e.g. new URL('./x.wasm', import.meta.url);
 * compiled once a process) on a fresh memory of `bytes` bytes, its only import (env.memory).
 * EngineUnavailableError where the runtime has no WebAssembly.
 */
export function instantiateWasmKernel<Exports>(url: URL, bytes: number): WasmKernelInstance<Exports> {
  if (!api) throw new EngineUnavailableError('this runtime has no WebAssembly');
  let m = modules.get(url.href);
  if (!m) {
    m = new api.Module(readFileSync(url));
    modules.set(url.href, m);
  }
  const memory = new api.Memory({ initial: Math.ceil(bytes / 65536) + 1 });
  const instance = new api.Instance(m, { env: { memory } });
  return { exports: instance.exports as Exports, buffer: memory.buffer };
}

const shared = new Map<string, WasmKernelInstance<unknown>>();

/**
 * An instance of the kernel file at `url` with at least `bytes` bytes of memory, kept for the next
 * call of this thread (one a file, the largest asked for so far): for a host whose use of the
 * memory ends within one synchronous call (a detect() call), which then saves a fresh memory and
 * its zeroing a call. Its memory holds what the last user left there.
 */
export function sharedWasmKernel<Exports>(url: URL, bytes: number): WasmKernelInstance<Exports> {
  const have = shared.get(url.href);
  if (have && have.buffer.byteLength >= bytes) return have as WasmKernelInstance<Exports>;
  const made = instantiateWasmKernel<Exports>(url, bytes);
  shared.set(url.href, made);
  return made;
}

/** One line for `lattice-mimo info`: which kernels 'auto' runs on this machine, and why. */
export function describeCpuKernels(): string {
  const why = wasmUnavailableReason();
  return why === null
    ? 'cpu kernels: WebAssembly SIMD (v128 lanes; the TypeScript reference on request)'
    : `cpu kernels: TypeScript (${why})`;
}
