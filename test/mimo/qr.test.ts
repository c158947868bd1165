/**
 * QR by modified Gram-Schmidt (plain and sorted), the N-way paper's extended form [H | y] -> [R | Q^T y],
 * and the real-valued decompositions RVD / MRVD, on fresh random matrices (seed printed on failure).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { Philox } from '../../src/core/rng.js';
import { InvalidArgumentError, RankDeficientError } from '../../src/core/errors.js';
import { makeBatch } from '../../src/core/matrix.js';
import { mgsInPlace, qrBatch, qrInto, qrMgs, sortedQr, type QrResult } from '../../src/mimo/preprocess/qr.js';
import { mrvd, realVector, realVectors, rvd, type RealLayout } from '../../src/mimo/preprocess/rvd.js';
import { transmit } from '../../src/mimo/channel.js';
import { rayleighChannels } from '../../src/channels/index.js';

const seed = randomInt(2 ** 31);
const msg = (s: string) => `${s} (seed ${seed})`;
const rng = new Philox(seed, 7);

function randomMatrix(m: number, n: number): Float64Array {
  const a = new Float64Array(m * n);
  for (let i = 0; i < a.length; i++) a[i] = rng.normal() * Math.exp(rng.normal()); // uneven column scales
  return a;
}

/** Checks Q^T Q = I, R upper triangular with positive diagonal, Q R = A[:, perm]. */
function checkQr(A: Float64Array, m: number, n: number, r: QrResult, what: string): void {
  const { Q, R, perm } = r;
  assert.deepEqual(
    [...perm].sort((a, b) => a - b),
    Array.from({ length: n }, (_, i) => i),
    msg(`${what}: perm is a permutation`),
  );
  let scale = 0;
  for (const v of A) scale = Math.max(scale, Math.abs(v));
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      let d = 0;
      for (let i = 0; i < m; i++) d += Q[i + a * m]! * Q[i + b * m]!;
      assert.ok(Math.abs(d - (a === b ? 1 : 0)) < 1e-10, msg(`${what}: (Q^T Q)[${a}][${b}] = ${d}`));
    }
    assert.ok(R[a + a * n]! > 0, msg(`${what}: R[${a}][${a}] = ${R[a + a * n]} not positive`));
    for (let b = 0; b < a; b++) assert.equal(R[a + b * n], 0, msg(`${what}: R[${a}][${b}] below the diagonal`));
  }
  for (let i = 0; i < m; i++) {
    for (let k = 0; k < n; k++) {
      let v = 0;
      for (let l = 0; l < n; l++) v += Q[i + l * m]! * R[l + k * n]!;
      assert.ok(
        Math.abs(v - A[i + perm[k]! * m]!) < 1e-10 * scale * n,
        msg(`${what}: (QR)[${i}][${k}] = ${v} vs A = ${A[i + perm[k]! * m]}`),
      );
    }
  }
}

test('MGS QR: Q^T Q = I, R upper triangular, Q R = H on random matrices', () => {
  for (let t = 0; t < 200; t++) {
    const n = 1 + rng.int(8),
      m = n + rng.int(4);
    const A = randomMatrix(m, n);
    const r = qrMgs(A, m, n);
    checkQr(A, m, n, r, `qrMgs ${m}x${n} #${t}`);
    assert.deepEqual(
      [...r.perm],
      Array.from({ length: n }, (_, i) => i),
      msg('plain QR keeps the column order'),
    );
  }
});

test('sorted QR (SQRD): each step takes the remaining column of least (or greatest) residual norm', () => {
  for (let t = 0; t < 200; t++) {
    const n = 1 + rng.int(8),
      m = n + rng.int(4);
    const A = randomMatrix(m, n);
    for (const order of ['ascending', 'descending'] as const) {
      const r = sortedQr(A, m, n, 0, order);
      checkQr(A, m, n, r, `sortedQr ${order} ${m}x${n} #${t}`);
      // Residual norm^2 of column k after step i-1 is sum_{l >= i} R[l][k]^2 (k >= i). Norms are
      // downdated, so allow rounding relative to the columns' full norms.
      for (let i = 0; i < n; i++) {
        const chosen = r.R[i + i * n]! ** 2;
        let full = chosen;
        for (let l = 0; l < i; l++) full += r.R[l + i * n]! ** 2;
        for (let k = i + 1; k < n; k++) {
          let res = 0,
            fullK = 0;
          for (let l = i; l <= k; l++) res += r.R[l + k * n]! ** 2;
          for (let l = 0; l <= k; l++) fullK += r.R[l + k * n]! ** 2;
          const tol = 1e-12 * (full + fullK);
          if (order === 'ascending')
            assert.ok(
              chosen <= res * (1 + 1e-9) + tol,
              msg(`step ${i}: chose ${chosen} but column at ${k} has ${res}`),
            );
          else
            assert.ok(
              chosen >= res * (1 - 1e-9) - tol,
              msg(`step ${i}: chose ${chosen} but column at ${k} has ${res}`),
            );
        }
      }
    }
  }
});

test('sorted QR by pairs (MRVD): after whole streams a real part, and the order survives rounding H to float32', () => {
  for (let t = 0; t < 200; t++) {
    const nt = 1 + rng.int(6),
      nr = nt + rng.int(3);
    const m = 2 * nr,
      n = 2 * nt;
    const H = rayleighChannels(rng, 1, nt, nr);
    const orderOf = (h: Float64Array): QrResult => {
      const r = { m, n, Q: new Float64Array(m * n), R: new Float64Array(n * n), perm: new Int32Array(n) };
      qrInto(mrvd(h, 1, nt, nr), 0, m, n, 'ascending', r.Q, r.R, r.perm, undefined, undefined, true);
      return r;
    };
    const r = orderOf(H);
    checkQr(mrvd(H, 1, nt, nr), m, n, r, `pairs ${m}x${n} #${t}`);
    // with whole streams taken, the next stream's columns 2j, 2j + 1 (Re, Im) tie: the real part first
    for (let i = 0; i < n; i += 1) {
      const taken = r.perm.subarray(0, i);
      if (taken.every((d) => taken.includes(d ^ 1)))
        assert.equal(r.perm[i]! % 2, 0, msg(`#${t}: column ${i} of [${r.perm}] taken after whole streams`));
    }
    assert.deepEqual([...orderOf(H.map(Math.fround)).perm], [...r.perm], msg(`#${t}: order after rounding H`));
  }
  const A = new Float64Array(12).fill(1);
  assert.throws(
    () =>
      qrInto(
        A,
        0,
        4,
        3,
        'ascending',
        new Float64Array(12),
        new Float64Array(9),
        new Int32Array(3),
        undefined,
        undefined,
        true,
      ),
    InvalidArgumentError,
  );
});

test('the N-way extended MGS gives [R | Q^T y]; batched QR matches single QR', () => {
  for (let t = 0; t < 50; t++) {
    const n = 1 + rng.int(8),
      m = n + rng.int(3);
    const A = randomMatrix(m, n + 1); // last column = y
    const V = A.slice();
    const E = new Float64Array(n * (n + 1));
    mgsInPlace(V, 0, m, n + 1, n, E);
    const ref = qrMgs(A, m, n);
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < n; k++)
        assert.ok(
          Math.abs(E[i + k * n]! - ref.R[i + k * n]!) < 1e-9 * (1 + Math.abs(ref.R[i + k * n]!)),
          msg('R part'),
        );
      let qy = 0;
      for (let r = 0; r < m; r++) qy += ref.Q[r + i * m]! * A[r + n * m]!;
      assert.ok(
        Math.abs(E[i + n * n]! - qy) < 1e-9 * (1 + Math.abs(qy)),
        msg(`(Q^T y)[${i}] = ${E[i + n * n]} vs ${qy}`),
      );
    }
  }
  const batch = 5,
    m = 6,
    n = 4;
  const data = randomMatrix(m, n * batch);
  const out = qrBatch(makeBatch(data, batch, m, n), 'ascending');
  for (let b = 0; b < batch; b++) {
    const single = sortedQr(data, m, n, b * m * n);
    assert.deepEqual([...out.R.data.subarray(b * n * n, (b + 1) * n * n)], [...single.R], msg(`batch entry ${b}`));
  }
});

test('rank-deficient and zero columns are refused with RankDeficientError', () => {
  const m = 5,
    n = 3;
  const A = randomMatrix(m, n);
  for (let i = 0; i < m; i++) A[i + 2 * m] = 2 * A[i]! - 3 * A[i + m]!; // column 2 dependent
  assert.throws(() => qrMgs(A, m, n), RankDeficientError);
  assert.throws(() => sortedQr(A, m, n), RankDeficientError);
  const Z = randomMatrix(m, n);
  for (let i = 0; i < m; i++) Z[i + m] = 0;
  assert.throws(
    () => sortedQr(Z, m, n),
    (e: unknown) => e instanceof RankDeficientError && e.code === 'ZERO_VECTOR',
  );
});

test('RVD and MRVD: H_r x_r equals the real image of H s', () => {
  for (const layout of ['rvd', 'mrvd'] as RealLayout[]) {
    for (let t = 0; t < 50; t++) {
      const nr = 1 + rng.int(5),
        nt = 1 + rng.int(5);
      const H = rayleighChannels(rng, 1, nt, nr);
      const s = new Float64Array(2 * nt);
      rng.fillNormal(s);
      const Hr = layout === 'rvd' ? rvd(H, 1, nt, nr) : mrvd(H, 1, nt, nr);
      const xr = realVectors(layout, s, nt);
      const yr = realVector(layout, transmit(H, s, nt, nr), 0, nr, new Float64Array(2 * nr));
      for (let i = 0; i < 2 * nr; i++) {
        let v = 0;
        for (let j = 0; j < 2 * nt; j++) v += Hr[i + j * 2 * nr]! * xr[j]!;
        assert.ok(Math.abs(v - yr[i]!) < 1e-12, msg(`${layout} ${nr}x${nt} row ${i}: ${v} vs ${yr[i]}`));
      }
      if (layout === 'mrvd') {
        // Interleaved layout: real vector = the interleaved complex array itself.
        assert.deepEqual([...xr], [...s]);
      }
    }
  }
});
