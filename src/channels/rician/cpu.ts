/**
 * Flat Rician fading on the CPU: H = sqrt(K/(K+1)) H_LOS + sqrt(1/(K+1)) Hw, Hw rayleigh's draw of
 * the same words (4 nr nt a channel: rayleighChannels, so a channel can be drawn alone, and by the
 * GPU generator, rician.cu), H_LOS the fixed line-of-sight matrix a_r(aoa) a_t(aod)^H of two uniform
 * linear arrays with half-wavelength spacing: H_LOS(i, j) = exp(j pi (i sin aoa - j sin aod)),
 * unit modulus, so every entry has E|h|^2 = 1.
 */
import { rayleighChannels } from '../rayleigh/cpu.js';
import { drawSpan } from '../span.js';
import type { ChannelGenerator, ChannelShape } from '../types.js';

/** The parameters of the rician model (SimulationOptions.channelOptions). */
export interface RicianParams {
  /** The K-factor in dB: the line-of-sight power over the scattered power (default 9). */
  kFactorDb?: number;
  /** The angle of arrival at the receive array, degrees from broadside (default 0). */
  aoaDeg?: number;
  /** The angle of departure at the transmit array, degrees from broadside (default 0). */
  aodDeg?: number;
}

/** The default K-factor (dB): the mean LOS K-factor of 3GPP TR 38.901 Table 7.5-6 for UMa and UMi. */
export const DEFAULT_K_FACTOR_DB = 9;

/**
 * The gains [sqrt(K/(K+1)), sqrt(1/(K+1))] of K = 10^(dB/10), without overflow at any finite dB
 * (each side computed from the factor at most 1).
 */
export function ricianGains(kFactorDb: number): [number, number] {
  if (kFactorDb >= 0) {
    const t = 10 ** (-kFactorDb / 10);
    return [Math.sqrt(1 / (1 + t)), Math.sqrt(t / (1 + t))];
  }
  const k = 10 ** (kFactorDb / 10);
  return [Math.sqrt(k / (1 + k)), Math.sqrt(1 / (1 + k))];
}

/** H_LOS, nr x nt in the channels' layout (column-major, interleaved). */
export function losMatrix(nt: number, nr: number, aoaDeg: number, aodDeg: number): Float64Array {
  const sr = Math.sin((aoaDeg * Math.PI) / 180),
    st = Math.sin((aodDeg * Math.PI) / 180);
  const L = new Float64Array(2 * nr * nt);
  for (let j = 0; j < nt; j++)
    for (let i = 0; i < nr; i++) {
      const phase = Math.PI * (i * sr - j * st);
      L[2 * (i + j * nr)] = Math.cos(phase);
      L[2 * (i + j * nr) + 1] = Math.sin(phase);
    }
  return L;
}

/**
 * What a channel adds to Hw, from the parameters (defaults filled in): the two gains and H_LOS
 * (2 nr nt numbers, the channels' layout). The CPU and the CUDA generator both take them from here.
 */
export function ricianParts(
  shape: ChannelShape,
  params: RicianParams,
): { los: number; scatter: number; L: Float64Array } {
  const [los, scatter] = ricianGains(params.kFactorDb ?? DEFAULT_K_FACTOR_DB);
  return { los, scatter, L: losMatrix(shape.nt, shape.nr, params.aoaDeg ?? 0, params.aodDeg ?? 0) };
}

/** The model's CPU generator. */
export function ricianGenerator(shape: ChannelShape, params: RicianParams): ChannelGenerator {
  const { nt, nr } = shape;
  const { los, scatter, L } = ricianParts(shape, params);
  const per = L.length;
  return {
    draw: (span) =>
      drawSpan(span, 4 * nr * nt, per, (rng, n) => {
        const H = rayleighChannels(rng, n, nt, nr);
        for (let e = 0; e < H.length; e++) H[e] = los * L[e % per]! + scatter * H[e]!;
        return H;
      }),
  };
}
