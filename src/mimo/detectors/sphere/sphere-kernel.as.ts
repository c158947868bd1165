/**
 * AssemblyScript source of the sphere decoder's kernels on WebAssembly (built to sphere-kernel.wasm
 * by scripts/build-wasm.mjs; not compiled by tsc): the per-channel sorted complex QR (complex.ts's
 * complexSortedQrInto, expanded to the real R by MRVD, as triangularizeInto 'complex') and the
 * per-vector Schnorr-Euchner search (cpu.ts's SphereSearch), for a whole run of channels and
 * vectors in one call. The arithmetic is the reference's, operation for operation (float64, no
 * fused multiply-add, Math.round as JavaScript rounds): the same decisions, nodes and budget stops.
 *
 * Square QAM only (the host refuses the rest). Every pointer is a byte offset into the imported
 * memory, laid out by the host (wasm.ts):
 *   H       f64[channels][2 nr nt]   the scaled complex channels
 *   prep    per channel (stride bytes): Q f64[2 nr nt], rows f64[n n], invDiag f64[n], weight f64[n], perm i32[n]
 *   y       f64[vectors][2 nr]       the scaled received vectors
 *   chan    i32[vectors]             each vector's channel
 *   table   i32[q q]                 symbol index of a stream's level indices (Re * q + Im)
 *   symOut  i32[vectors][nt]         decisions
 *   stop    u8[vectors]              1 where the search stopped at its node budget
 *   work    scratch
 */
import { F, I, jsRound, setF, setI } from '../../../core/wasm/memory.lib.as';

/** Math.round(u) clamped to [0, qMax], clamped before it becomes an integer (u may be far out). */
@inline
function level(u: f64, qMax: i32): i32 {
  const r = jsRound(u);
  return r < 0 ? 0 : r > <f64>qMax ? qMax : <i32>r;
}

/** Bytes of one channel's prep. */
export function prepStride(nr: i32, nt: i32): usize {
  const n = 2 * nt;
  return ((((<usize>(2 * nr * nt + n * n + 2 * n)) << 3) + ((<usize>n) << 2)) + 15) & ~(<usize>15);
}

/**
 * Per channel: the sorted complex QR and the search's tables (prepareSphere). Returns the first
 * channel whose matrix is rank deficient (the host then lets the reference throw), or -1.
 */
export function prepare(H: usize, channels: i32, nr: i32, nt: i32, scale: f64, prep: usize, work: usize): i32 {
  const n = 2 * nt;
  const stride = prepStride(nr, nt);
  const hLen = 2 * nr * nt;
  const Rc = work,
    resid = Rc + ((<usize>(2 * nt * nt)) << 3),
    R = resid + ((<usize>nt) << 3),
    permC = R + ((<usize>(n * n)) << 3);
  for (let c = 0; c < channels; c++) {
    const h = H + ((<usize>(c * hLen)) << 3);
    const Q = prep + <usize>c * stride;
    const rows = Q + ((<usize>hLen) << 3),
      invDiag = rows + ((<usize>(n * n)) << 3),
      weight = invDiag + ((<usize>n) << 3),
      perm = weight + ((<usize>n) << 3);
    let sc: f64 = 0;
    for (let k = 0; k < nt; k++) {
      setI(permC, k, k);
      let nn: f64 = 0;
      for (let i = 0; i < 2 * nr; i++) {
        const v = F(h, 2 * k * nr + i);
        setF(Q, 2 * k * nr + i, v);
        nn += v * v;
      }
      setF(resid, k, nn);
      sc = Math.max(sc, nn);
      for (let i = 0; i < 2 * nt; i++) setF(Rc, 2 * k * nt + i, 0);
    }
    for (let i = 0; i < nt; i++) {
      let best = i;
      for (let k = i + 1; k < nt; k++) if (F(resid, k) < F(resid, best)) best = k;
      if (best != i) {
        for (let r = 0; r < 2 * nr; r++) {
          const t = F(Q, 2 * i * nr + r);
          setF(Q, 2 * i * nr + r, F(Q, 2 * best * nr + r));
          setF(Q, 2 * best * nr + r, t);
        }
        for (let r = 0; r < 2 * i; r++) {
          const t = F(Rc, 2 * i * nt + r);
          setF(Rc, 2 * i * nt + r, F(Rc, 2 * best * nt + r));
          setF(Rc, 2 * best * nt + r, t);
        }
        const tp = I(permC, i);
        setI(permC, i, I(permC, best));
        setI(permC, best, tp);
        const tr = F(resid, i);
        setF(resid, i, F(resid, best));
        setF(resid, best, tr);
      }
      const ci = 2 * i * nr;
      let nn: f64 = 0;
      for (let r = 0; r < 2 * nr; r++) nn += F(Q, ci + r) * F(Q, ci + r);
      if (!(nn > 1e-24 * sc)) return c;
      const norm = Math.sqrt(nn),
        inv = 1 / norm;
      setF(Rc, 2 * (i + i * nt), norm);
      for (let r = 0; r < 2 * nr; r++) setF(Q, ci + r, F(Q, ci + r) * inv);
      for (let k = i + 1; k < nt; k++) {
        const ck = 2 * k * nr;
        let dr: f64 = 0,
          di: f64 = 0;
        for (let r = 0; r < nr; r++) {
          const ar = F(Q, ci + 2 * r),
            ai = F(Q, ci + 2 * r + 1),
            br = F(Q, ck + 2 * r),
            bi = F(Q, ck + 2 * r + 1);
          dr += ar * br + ai * bi;
          di += ar * bi - ai * br;
        }
        setF(Rc, 2 * (i + k * nt), dr);
        setF(Rc, 2 * (i + k * nt) + 1, di);
        for (let r = 0; r < nr; r++) {
          const ar = F(Q, ci + 2 * r),
            ai = F(Q, ci + 2 * r + 1);
          setF(Q, ck + 2 * r, F(Q, ck + 2 * r) - (ar * dr - ai * di));
          setF(Q, ck + 2 * r + 1, F(Q, ck + 2 * r + 1) - (ar * di + ai * dr));
        }
        setF(resid, k, F(resid, k) - (dr * dr + di * di));
      }
    }
    // the MRVD: positions 2k, 2k + 1 are Re and Im of stream permC[k] (RVD numbering s, nt + s)
    for (let k = 0; k < nt; k++) {
      const s = I(permC, k);
      setI(perm, 2 * k, s);
      setI(perm, 2 * k + 1, nt + s);
    }
    for (let e = 0; e < n * n; e++) setF(R, e, 0);
    for (let j = 0; j < nt; j++)
      for (let i = 0; i <= j; i++) {
        const re = F(Rc, 2 * (i + j * nt)),
          im = F(Rc, 2 * (i + j * nt) + 1);
        setF(R, 2 * i + 2 * j * n, re);
        setF(R, 2 * i + (2 * j + 1) * n, -im);
        setF(R, 2 * i + 1 + 2 * j * n, im);
        setF(R, 2 * i + 1 + (2 * j + 1) * n, re);
      }
    for (let k = 0; k < n; k++) {
      for (let j = k; j < n; j++) setF(rows, k * n + j, F(R, k + j * n));
      const d = F(R, k + k * n);
      setF(invDiag, k, 1 / d);
      setF(weight, k, 4 * scale * scale * d * d);
    }
  }
  return -1;
}

/** Bytes of the scratch `work` must hold. */
export function workBytes(nr: i32, nt: i32): usize {
  const n = 2 * nt;
  return ((<usize>(2 * nt * nt + nt + n * n + 6 * n + 1 + 2 * nr)) << 3) + ((<usize>(6 * n + nt)) << 2) + 64;
}

/**
 * Per vector: yHat = Q^H y (the complex rotation), the initial radius (infinity, or with `babai`
 * the sliced zero-forcing point's distance, inflated as the reference inflates it), the search
 * within maxNodes nodes, and the decisions. Returns the nodes visited over all vectors.
 */
export function detect(
  y: usize,
  chan: usize,
  vectors: i32,
  prep: usize,
  nr: i32,
  nt: i32,
  q: i32,
  scale: f64,
  babai: i32,
  maxNodes: f64,
  table: usize,
  symOut: usize,
  stop: usize,
  work: usize,
): f64 {
  const n = 2 * nt;
  const stride = prepStride(nr, nt);
  const hLen = 2 * nr * nt;
  const yHat = work,
    amp = yHat + ((<usize>n) << 3),
    pd = amp + ((<usize>n) << 3),
    centre = pd + ((<usize>(n + 1)) << 3),
    idx = centre + ((<usize>n) << 3),
    lo = idx + ((<usize>n) << 2),
    hi = lo + ((<usize>n) << 2),
    best = hi + ((<usize>n) << 2),
    scr = best + ((<usize>n) << 2);
  const half = <f64>(q - 1) / 2,
    toIndex = 1 / (2 * scale),
    qMax = q - 1;
  let total: f64 = 0;
  for (let v = 0; v < vectors; v++) {
    const Q = prep + <usize>I(chan, v) * stride;
    const rows = Q + ((<usize>hLen) << 3),
      invDiag = rows + ((<usize>(n * n)) << 3),
      weight = invDiag + ((<usize>n) << 3),
      perm = weight + ((<usize>n) << 3);
    const yv = y + ((<usize>(v * 2 * nr)) << 3);
    for (let k = 0; k < nt; k++) {
      let re: f64 = 0,
        im: f64 = 0;
      const c = 2 * k * nr;
      for (let i = 0; i < nr; i++) {
        const qr = F(Q, c + 2 * i),
          qi = F(Q, c + 2 * i + 1),
          a = F(yv, 2 * i),
          b = F(yv, 2 * i + 1);
        re += qr * a + qi * b;
        im += qr * b - qi * a;
      }
      setF(yHat, 2 * k, re);
      setF(yHat, 2 * k + 1, im);
    }
    let r2: f64 = Infinity;
    if (babai) r2 = zfRadius(n, q, scale, yHat, amp, idx, rows, invDiag, best) * (1 + 1e-9) + 1e-300;
    // the search (SphereSearch.search)
    let found = false,
      stopped = false;
    let nodes: f64 = 0;
    let k = n - 1;
    setF(pd, n, 0);
    {
      const u = F(yHat, k) * F(invDiag, k) * toIndex + half;
      const i0 = level(u, qMax);
      setF(centre, k, u);
      setI(idx, k, i0);
      setI(lo, k, i0 - 1);
      setI(hi, k, i0 + 1);
    }
    for (;;) {
      const dlt = <f64>I(idx, k) - F(centre, k);
      const m = F(pd, k + 1) + F(weight, k) * dlt * dlt;
      if (++nodes > maxNodes) {
        nodes -= 1;
        stopped = true;
        if (!found) zfRadius(n, q, scale, yHat, amp, idx, rows, invDiag, best);
        break;
      }
      if (m < r2) {
        if (k == 0) {
          r2 = m;
          found = true;
          for (let t = 0; t < n; t++) setI(best, t, I(idx, t));
          k = 1;
        } else {
          setF(amp, k, <f64>(2 * I(idx, k) - qMax) * scale);
          setF(pd, k, m);
          k--;
          let s = F(yHat, k);
          const rb = k * n;
          for (let j = k + 1; j < n; j++) s -= F(rows, rb + j) * F(amp, j);
          const u = s * F(invDiag, k) * toIndex + half;
          const i0 = level(u, qMax);
          setF(centre, k, u);
          setI(idx, k, i0);
          setI(lo, k, i0 - 1);
          setI(hi, k, i0 + 1);
          continue;
        }
      } else {
        k++;
      }
      // the next candidate at level k, going up while a level is exhausted
      let done = false;
      for (;;) {
        if (k >= n) {
          if (!found) zfRadius(n, q, scale, yHat, amp, idx, rows, invDiag, best);
          done = true;
          break;
        }
        const l = I(lo, k),
          h = I(hi, k),
          u = F(centre, k);
        const lOk = l >= 0,
          hOk = h <= qMax;
        if (lOk && (!hOk || u - <f64>l <= <f64>h - u)) {
          setI(idx, k, l);
          setI(lo, k, l - 1);
          break;
        }
        if (hOk) {
          setI(idx, k, h);
          setI(hi, k, h + 1);
          break;
        }
        k++;
      }
      if (done) break;
    }
    total += nodes;
    store<u8>(stop + <usize>v, stopped ? 1 : 0);
    // symbolsFromLevels
    for (let t = 0; t < n; t++) setI(scr, I(perm, t), I(best, t));
    for (let j = 0; j < nt; j++) setI(symOut, v * nt + j, I(table, I(scr, j) * q + I(scr, nt + j)));
  }
  return total;
}

/** SphereSearch.zfRadius: the sliced unconstrained least-squares point into best, and its squared distance. */
function zfRadius(
  n: i32,
  q: i32,
  scale: f64,
  yHat: usize,
  amp: usize,
  idx: usize,
  rows: usize,
  invDiag: usize,
  best: usize,
): f64 {
  const half = <f64>(q - 1) / 2;
  for (let k = n - 1; k >= 0; k--) {
    let s = F(yHat, k);
    for (let j = k + 1; j < n; j++) s -= F(rows, k * n + j) * F(amp, j);
    setF(amp, k, s * F(invDiag, k));
  }
  for (let k = 0; k < n; k++) {
    setI(idx, k, level(F(amp, k) / (2 * scale) + half, q - 1));
  }
  for (let k = 0; k < n; k++) setF(amp, k, <f64>(2 * I(idx, k) - (q - 1)) * scale);
  let d: f64 = 0;
  for (let k = 0; k < n; k++) {
    let s = F(yHat, k);
    for (let j = k; j < n; j++) s -= F(rows, k * n + j) * F(amp, j);
    d += s * s;
  }
  for (let t = 0; t < n; t++) setI(best, t, I(idx, t));
  return d;
}
