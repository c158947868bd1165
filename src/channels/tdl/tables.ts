/**
 * The tap tables of the 3GPP tapped delay line models: TR 38.901 (v17) Tables 7.7.2-1 to 7.7.2-5
 * (TDL-A .. TDL-E, delays normalized by the delay spread) and TS 38.104 Annex G.2 (TDLA30, TDLB100,
 * TDLC300: delays in nanoseconds, used as they are). Powers in dB. In the line-of-sight models (D, E)
 * the first row is the specular path and the second the Rayleigh part of the same first tap; their
 * ratio is the table's K-factor.
 */

/** One model's table. */
export interface TdlTable {
  /** Delays: multiples of the delay spread (`normalized`), or nanoseconds. */
  readonly delays: readonly number[];
  /** Tap powers, dB. */
  readonly powersDb: readonly number[];
  /** Whether the delays scale with a delay spread (38.901) or are fixed (38.104). */
  readonly normalized: boolean;
  /** Whether the first row is a specular line-of-sight path. */
  readonly los: boolean;
}

/** The tables by model name. */
export const TDL_TABLES = {
  'tdl-a': {
    delays: [
      0.0, 0.3819, 0.4025, 0.5868, 0.461, 0.5375, 0.6708, 0.575, 0.7618, 1.5375, 1.8978, 2.2242, 2.1718, 2.4942, 2.5119,
      3.0582, 4.081, 4.4579, 4.5695, 4.7966, 5.0066, 5.3043, 9.6586,
    ],
    powersDb: [
      -13.4, 0.0, -2.2, -4.0, -6.0, -8.2, -9.9, -10.5, -7.5, -15.9, -6.6, -16.7, -12.4, -15.2, -10.8, -11.3, -12.7,
      -16.2, -18.3, -18.9, -16.6, -19.9, -29.7,
    ],
    normalized: true,
    los: false,
  },
  'tdl-b': {
    delays: [
      0.0, 0.1072, 0.2155, 0.2095, 0.287, 0.2986, 0.3752, 0.5055, 0.3681, 0.3697, 0.57, 0.5283, 1.1021, 1.2756, 1.5474,
      1.7842, 2.0169, 2.8294, 3.0219, 3.6187, 4.1067, 4.279, 4.7834,
    ],
    powersDb: [
      0.0, -2.2, -4.0, -3.2, -9.8, -1.2, -3.4, -5.2, -7.6, -3.0, -8.9, -9.0, -4.8, -5.7, -7.5, -1.9, -7.6, -12.2, -9.8,
      -11.4, -14.9, -9.2, -11.3,
    ],
    normalized: true,
    los: false,
  },
  'tdl-c': {
    delays: [
      0.0, 0.2099, 0.2219, 0.2329, 0.2176, 0.6366, 0.6448, 0.656, 0.6584, 0.7935, 0.8213, 0.9336, 1.2285, 1.3083,
      2.1704, 2.7105, 4.2589, 4.6003, 5.4902, 5.6077, 6.3065, 6.6374, 7.0427, 8.6523,
    ],
    powersDb: [
      -4.4, -1.2, -3.5, -5.2, -2.5, 0.0, -2.2, -3.9, -7.4, -7.1, -10.7, -11.1, -5.1, -6.8, -8.7, -13.2, -13.9, -13.9,
      -15.8, -17.1, -16.0, -15.7, -21.6, -22.8,
    ],
    normalized: true,
    los: false,
  },
  'tdl-d': {
    delays: [0.0, 0.0, 0.035, 0.612, 1.363, 1.405, 1.804, 2.596, 1.775, 4.042, 7.937, 9.424, 9.708, 12.525],
    powersDb: [-0.2, -13.5, -18.8, -21.0, -22.8, -17.9, -20.1, -21.9, -22.9, -27.8, -23.6, -24.8, -30.0, -27.7],
    normalized: true,
    los: true,
  },
  'tdl-e': {
    delays: [
      0.0, 0.0, 0.5133, 0.544, 0.563, 0.544, 0.7112, 1.9092, 1.9293, 1.9589, 2.6426, 3.7136, 5.4524, 12.0034, 20.6519,
    ],
    powersDb: [
      -0.03, -22.03, -15.8, -18.1, -19.8, -22.9, -22.4, -18.6, -20.8, -22.6, -22.3, -25.6, -20.2, -29.8, -29.2,
    ],
    normalized: true,
    los: true,
  },
  'tdl-a30': {
    delays: [0.0, 10.0, 15.0, 20.0, 25.0, 50.0, 65.0, 75.0, 105.0, 135.0, 150.0, 290.0],
    powersDb: [-15.5, 0.0, -5.1, -5.1, -9.6, -8.2, -13.1, -11.5, -11.0, -16.2, -16.6, -26.2],
    normalized: false,
    los: false,
  },
  'tdl-b100': {
    delays: [0.0, 10.0, 20.0, 30.0, 35.0, 45.0, 55.0, 120.0, 170.0, 245.0, 330.0, 480.0],
    powersDb: [0.0, -2.2, -0.6, -0.6, -0.3, -1.2, -5.9, -2.2, -0.8, -6.3, -7.5, -7.1],
    normalized: false,
    los: false,
  },
  'tdl-c300': {
    delays: [0.0, 65.0, 70.0, 190.0, 195.0, 200.0, 240.0, 325.0, 520.0, 1045.0, 1510.0, 2595.0],
    powersDb: [-6.9, 0.0, -7.7, -2.5, -2.4, -9.9, -8.0, -6.6, -7.1, -13.0, -14.2, -16.0],
    normalized: false,
    los: false,
  },
} as const satisfies Record<string, TdlTable>;

/** A TDL model name. */
export type TdlName = keyof typeof TDL_TABLES;
