/**
 * Shared by the tests of kernels that are not bit-identical to their CPU reference (the
 * whole-device kernel sums over warps and blocks): one output proven on its own, Z unimodular
 * exactly, the returned basis equal to B_in Z, the LLL conditions of B_in Z in float64. float32
 * outputs are held to a float32-sized tolerance.
 */
import assert from 'node:assert/strict';
import type { RealArray } from '../../src/core/matrix.js';
import { applyTransform, checkLLL, checkUnimodular } from '../../src/lattice/check.js';
import type { AlgoParams } from '../../src/lattice/types.js';

/** Proves basis k of a GPU result (r) of `input` (batch of n x m bases). */
export function proveOutput(
  input: RealArray,
  r: { basis: RealArray; Z: Float64Array },
  k: number,
  n: number,
  m: number,
  p: AlgoParams,
  what: string,
): void {
  const Z = r.Z.subarray(k * m * m, (k + 1) * m * m);
  const Bin = input.subarray(k * n * m, (k + 1) * n * m);
  const uni = checkUnimodular(Z, m);
  assert.ok(uni.ok, `${what}: Z is not unimodular (det ${uni.det})`);
  const out = applyTransform(Bin, Z, n, m);
  assert.ok(out, `${what}: B_in Z is not representable`);
  const f32 = input instanceof Float32Array;
  const B = r.basis.subarray(k * n * m, (k + 1) * n * m);
  let worst = 0,
    scale = 0;
  for (let i = 0; i < n * m; i++) {
    worst = Math.max(worst, Math.abs(B[i]! - out[i]!));
    scale = Math.max(scale, Math.abs(out[i]!));
  }
  assert.ok(
    worst <= (f32 ? 1e-4 : 1e-10) * scale,
    `${what}: the returned basis differs from B_in Z by ${worst} (scale ${scale})`,
  );
  const c = checkLLL(out, n, m, p.delta, p.eta, f32 ? 1e-3 : 1e-9);
  assert.ok(c.ok, `${what}: ${c.violations.join('; ')}`);
}

/**
 * Runs `call` on a copy of `input` (batch of n x m bases), asserts that the input was not modified,
 * and proves every output except the float32 failures (reduce() redoes those in float64).
 */
export async function proveCall<
  R extends { basis: RealArray; Z: Float64Array; stats: { float32Failures: { has(k: number): boolean } } },
>(
  call: (data: RealArray, batch: number, n: number, m: number, p: AlgoParams) => Promise<R>,
  input: RealArray,
  batch: number,
  n: number,
  m: number,
  p: AlgoParams,
  what: string,
): Promise<R> {
  const copy = input.slice() as RealArray;
  const r = await call(copy, batch, n, m, p);
  assert.deepEqual(copy, input, `${what}: the input was modified`);
  for (let k = 0; k < batch; k++) {
    if (r.stats.float32Failures.has(k)) continue;
    proveOutput(input, r, k, n, m, p, `${what}, basis ${k}`);
  }
  return r;
}
