/**
 * Linear detection shared by ZF and MMSE: per channel the filter W = (H^H H + a I)^{-1} H^H
 * (a = 0 for ZF, a = N0 for MMSE) and the per-stream bias mu_k = [W H]_kk = 1 - a [G^{-1}]_kk;
 * per vector s~ = W y, and each stream is sliced to the nearest point of s~_k / mu_k (the
 * unbiased MMSE estimate, so that inner QAM rings are not pulled towards zero).
 */
import { UnsupportedError } from '../../../core/index.js';
import { sliceSymbol, type Constellation } from '../../modulation.js';
import { filterInto, gramInto, invertInPlace } from '../../preprocess/complex.js';
import type { DetectorInstance, DetectorOutput, DetectorSetup } from '../detector.js';

export interface LinearPrep {
  /** nt x nr complex filter, column-major. */
  readonly W: Float64Array;
  /** 1 / mu_k. */
  readonly unbias: Float64Array;
}

export function createLinear(setup: DetectorSetup, kind: 'zf' | 'mmse'): DetectorInstance<LinearPrep> {
  const { nr, nt, constellation: con } = setup;
  if (kind === 'zf' && nr < nt)
    throw new UnsupportedError(
      `zf needs nr >= nt (got nt = ${nt}, nr = ${nr}): H has no left inverse; for nr < nt use ml, mmse or sic`,
    );
  const cols = Int32Array.from({ length: nt }, (_, j) => j);
  const G = new Float64Array(2 * nt * nt),
    work = new Float64Array(2 * nt * nt);
  const prep: LinearPrep = { W: new Float64Array(2 * nt * nr), unbias: new Float64Array(nt) }; // reused per channel
  return {
    prepare(H: Float64Array, hOff: number, noiseVar: number): LinearPrep {
      const a = kind === 'mmse' ? noiseVar : 0;
      gramInto(H, hOff, nr, cols, a, G);
      invertInPlace(G, nt, work);
      const { W, unbias } = prep;
      filterInto(G, H, hOff, nr, cols, W);
      for (let k = 0; k < nt; k++) {
        const mu = 1 - a * G[2 * (k + k * nt)]!;
        unbias[k] = mu > 1e-12 ? 1 / mu : 1;
      }
      return prep;
    },
    detect(p: LinearPrep, y: Float64Array, yOff: number, _noiseVar: number, out: DetectorOutput, v: number): number {
      linearDetect(p, nt, nr, con, y, yOff, out.symbols, v * nt);
      return 0;
    },
  };
}

export function linearDetect(
  p: LinearPrep,
  nt: number,
  nr: number,
  con: Constellation,
  y: Float64Array,
  yOff: number,
  out: Int32Array,
  off: number,
): void {
  for (let k = 0; k < nt; k++) {
    filterStream(p, k, nt, nr, y, yOff, pair, 0);
    out[off + k] = sliceSymbol(pair[0]!, pair[1]!, con);
  }
}

const pair = new Float64Array(2);

/** Stream k's unbiased filter output (W y)_k u_k of the vector at y[yOff], into z[zOff], z[zOff + 1]. */
export function filterStream(
  p: LinearPrep,
  k: number,
  nt: number,
  nr: number,
  y: Float64Array,
  yOff: number,
  z: Float64Array,
  zOff: number,
): void {
  const W = p.W;
  let re = 0,
    im = 0;
  for (let i = 0; i < nr; i++) {
    const wr = W[2 * (k + i * nt)]!,
      wi = W[2 * (k + i * nt) + 1]!;
    const yr = y[yOff + 2 * i]!,
      yi = y[yOff + 2 * i + 1]!;
    re += wr * yr - wi * yi;
    im += wr * yi + wi * yr;
  }
  const u = p.unbias[k]!;
  z[zOff] = re * u;
  z[zOff + 1] = im * u;
}
