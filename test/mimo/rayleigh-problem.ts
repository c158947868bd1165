/**
 * Detection problems for the tests: random symbols through iid Rayleigh channels with AWGN at
 * Es/N0 = snrDb (null: noise-free), drawn from the test's Philox stream in a fixed order.
 */
import type { Philox } from '../../src/core/rng.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { DetectionInput, Modulation } from '../../src/mimo/types.js';

/** A problem: the detector's input, the symbols sent, the modulation. */
export interface Problem {
  input: DetectionInput;
  sent: Int32Array;
  mod: Modulation;
}

/** A problem as drawn: one noise variance N0 for every vector. */
export type DrawnProblem = Problem & { input: DetectionInput & { noiseVar: number } };

/** channels x vpc vectors of nt streams on nr antennas: the channels, then each vector's symbols and noise. */
export function rayleighProblem(
  rng: Philox,
  nt: number,
  nr: number,
  mod: Modulation,
  channels: number,
  vpc: number,
  snrDb: number | null,
): DrawnProblem {
  const c = constellation(mod);
  const H = rayleighChannels(rng, channels, nt, nr);
  const vectors = channels * vpc;
  const sent = new Int32Array(vectors * nt);
  const y = new Float64Array(2 * vectors * nr);
  const n0 = snrDb === null ? 0 : 10 ** (-snrDb / 10);
  const sd = Math.sqrt(n0 / 2);
  for (let v = 0; v < vectors; v++) {
    const h = 2 * Math.floor(v / vpc) * nr * nt;
    for (let j = 0; j < nt; j++) sent[v * nt + j] = rng.int(c.size);
    for (let i = 0; i < nr; i++) {
      let re = rng.normal() * sd,
        im = rng.normal() * sd;
      for (let j = 0; j < nt; j++) {
        const hr = H[h + 2 * (i + j * nr)]!,
          hi = H[h + 2 * (i + j * nr) + 1]!;
        const s = sent[v * nt + j]!,
          sr = c.points[2 * s]!,
          si = c.points[2 * s + 1]!;
        re += hr * sr - hi * si;
        im += hr * si + hi * sr;
      }
      y[2 * (v * nr + i)] = re;
      y[2 * (v * nr + i) + 1] = im;
    }
  }
  return { input: { nt, nr, H, y, vectorsPerChannel: vpc, noiseVar: n0 }, sent, mod };
}
