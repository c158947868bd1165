/**
 * What the GPU detector tests share: a fresh seed per file and the reasons their emulator and
 * device tests skip; the bytes an emulated main() reads on stdin and writes on stdout (the CUDA
 * emulator, test/gpu/cuda-emulator.ts); the device the emulated shapes assume; and the ML check
 * (gpu-exact-check.ts) as assertions.
 */
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { cudaAvailable } from '../../src/gpu/index.js';
import { emulatorUnavailable } from '../gpu/cuda-emulator.js';
import { checkAgainstMl, type Problem } from './gpu-exact-check.js';

export interface GpuTestEnv {
  /** Drawn once per file; every message carries it, so a failure can be replayed. */
  readonly seed: number;
  msg(s: string): string;
  /** Why the emulated tests skip (no g++ able to build the emulator), or false. */
  readonly skipEmu: string | false;
  /** Why the device tests skip (no CUDA device), or false. */
  readonly skip: string | false;
}

export function gpuTestEnv(): GpuTestEnv {
  const seed = randomInt(2 ** 31);
  const unavailable = emulatorUnavailable();
  const cuda = cudaAvailable();
  return {
    seed,
    msg: (s) => `${s} (seed ${seed})`,
    skipEmu: unavailable ? `CUDA emulator unavailable: ${unavailable}` : false,
    skip: cuda.ok ? false : `no CUDA device: ${cuda.reason}`,
  };
}

/** Typed arrays back to back, as an emulated main() freads them (little-endian, no padding). */
export function stdinOf(parts: readonly ArrayBufferView[]): Buffer {
  return Buffer.concat(parts.map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)));
}

type Kind = 'i32' | 'f32' | 'f64';
type ArrayOf<K extends Kind> = K extends 'i32' ? Int32Array : K extends 'f32' ? Float32Array : Float64Array;
const CTOR = { i32: Int32Array, f32: Float32Array, f64: Float64Array } as const;

/**
 * An emulated main()'s stdout cut into the arrays it fwrote, in order ([kind, element count] each,
 * each copied so that any kind lands aligned); throws when the byte count differs.
 */
export function cutOutput<const L extends readonly (readonly [Kind, number])[]>(
  out: Uint8Array,
  layout: L,
): { -readonly [I in keyof L]: ArrayOf<L[I][0]> } {
  let o = 0;
  const arrays = layout.map(([kind, n]) => {
    const C = CTOR[kind],
      bytes = n * C.BYTES_PER_ELEMENT;
    const a = new C(new Uint8Array(out.subarray(o, o + bytes)).buffer);
    o += bytes;
    return a;
  });
  if (o !== out.byteLength) throw new Error(`emulated output: ${out.byteLength} bytes, the layout reads ${o}`);
  return arrays as { -readonly [I in keyof L]: ArrayOf<L[I][0]> };
}

/**
 * Asserts that `got` is float64 ML (`ref`) on every vector but those `skip` names, up to at most
 * `maxNearTies` proven float32 near-ties (gpu-exact-check.ts); `what` and the seed head each message.
 */
export function assertMl(
  env: GpuTestEnv,
  p: Problem,
  ref: Int32Array,
  got: Int32Array,
  what: string,
  maxNearTies: number,
  skip?: (v: number) => boolean,
): void {
  const chk = checkAgainstMl(p, ref, got, skip);
  assert.equal(chk.failure, null, env.msg(`${what}: ${chk.failure}`));
  assert.ok(chk.nearTies <= maxNearTies, env.msg(`${what}: ${chk.nearTies} near-ties in ${p.vectors} vectors`));
}
