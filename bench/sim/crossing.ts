/** Where an error-rate curve crosses a target, for the bench scripts' tables of SNR at a given rate. */

/** The SNR (dB) where a curve of `rate` against `snr` falls through `target`, interpolated in log rate; null when it does not. */
export function crossing(points: readonly { snr: number; rate: number }[], target: number): number | null {
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!,
      b = points[i]!;
    if (a.rate >= target && b.rate < target && b.rate > 0) {
      const t = (Math.log(a.rate) - Math.log(target)) / (Math.log(a.rate) - Math.log(b.rate));
      return a.snr + t * (b.snr - a.snr);
    }
  }
  return null;
}
