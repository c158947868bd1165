/**
 * Ordered MMSE successive interference cancellation (V-BLAST ordering): at each step the remaining
 * stream with the largest post-detection SINR, i.e. the smallest diagonal entry of
 * (H_S^H H_S + N0 I)^{-1}, is detected with its unbiased MMSE filter, sliced and cancelled.
 * The order and the filters depend on H and N0 only, so they are computed once per channel.
 * With N0 = 0 this is ZF-SIC.
 */
import { sliceSymbol } from '../../modulation.js';
import { filterInto, gramInto, invertInPlace } from '../../preprocess/complex.js';
import type { CpuDetector, DetectorInstance, DetectorOutput, DetectorSetup } from '../detector.js';
import { LinearLanes } from '../zf/linear-wasm.js';

export interface SicPrep {
  /** order[t]: the stream detected at step t. */
  readonly order: Int32Array;
  /** filters[t * 2nr ..]: the step's filter row (complex, nr). */
  readonly filters: Float64Array;
  /** 1 / mu of each step. */
  readonly unbias: Float64Array;
  /** The channel (copy, nr x nt complex) for the cancellation. */
  readonly H: Float64Array;
}

export const detector: CpuDetector<SicPrep> = {
  name: 'sic',
  soft: false,
  lanes: (setup) => new LinearLanes('sic', setup.nr, setup.nt, setup.constellation),
  create(setup: DetectorSetup): DetectorInstance<SicPrep> {
    const { nr, nt, constellation: con } = setup;
    const G = new Float64Array(2 * nt * nt),
      work = new Float64Array(2 * nt * nt),
      W = new Float64Array(2 * nt * nr);
    const r = new Float64Array(2 * nr);
    // Reused for every channel (a prepared state lives until the next prepare).
    const prep: SicPrep = {
      order: new Int32Array(nt),
      filters: new Float64Array(2 * nr * nt),
      unbias: new Float64Array(nt),
      H: new Float64Array(2 * nr * nt),
    };
    const remaining = new Int32Array(nt);
    return {
      prepare(H: Float64Array, hOff: number, noiseVar: number): SicPrep {
        const { order, filters, unbias } = prep;
        for (let j = 0; j < nt; j++) remaining[j] = j;
        for (let t = 0; t < nt; t++) {
          const n = nt - t;
          const cols = remaining.subarray(0, n);
          gramInto(H, hOff, nr, cols, noiseVar, G);
          invertInPlace(G, n, work);
          let bestK = 0;
          for (let k = 1; k < n; k++) if (G[2 * (k + k * n)]! < G[2 * (bestK + bestK * n)]!) bestK = k;
          filterInto(G, H, hOff, nr, cols, W);
          for (let i = 0; i < nr; i++) {
            filters[2 * (t * nr + i)] = W[2 * (bestK + i * n)]!;
            filters[2 * (t * nr + i) + 1] = W[2 * (bestK + i * n) + 1]!;
          }
          const mu = 1 - noiseVar * G[2 * (bestK + bestK * n)]!;
          unbias[t] = mu > 1e-12 ? 1 / mu : 1;
          order[t] = remaining[bestK]!;
          remaining.copyWithin(bestK, bestK + 1, n); // drop the detected stream, keep the order
        }
        prep.H.set(H.subarray(hOff, hOff + 2 * nr * nt));
        return prep;
      },
      detect(p: SicPrep, y: Float64Array, yOff: number, _noiseVar: number, out: DetectorOutput, v: number): number {
        for (let i = 0; i < 2 * nr; i++) r[i] = y[yOff + i]!;
        const pts = con.points,
          H = p.H;
        for (let t = 0; t < nt; t++) {
          let re = 0,
            im = 0;
          const fb = 2 * t * nr;
          for (let i = 0; i < nr; i++) {
            const wr = p.filters[fb + 2 * i]!,
              wi = p.filters[fb + 2 * i + 1]!;
            re += wr * r[2 * i]! - wi * r[2 * i + 1]!;
            im += wr * r[2 * i + 1]! + wi * r[2 * i]!;
          }
          const u = p.unbias[t]!;
          const a = sliceSymbol(re * u, im * u, con);
          const k = p.order[t]!;
          out.symbols[v * nt + k] = a;
          const ar = pts[2 * a]!,
            ai = pts[2 * a + 1]!;
          for (let i = 0; i < nr; i++) {
            const hr = H[2 * (i + k * nr)]!,
              hi = H[2 * (i + k * nr) + 1]!;
            r[2 * i] = r[2 * i]! - (hr * ar - hi * ai);
            r[2 * i + 1] = r[2 * i + 1]! - (hr * ai + hi * ar);
          }
        }
        return 0;
      },
    };
  },
};
