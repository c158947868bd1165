/**
 * Time correlation of a channel's entries: rho(lag) = Re E[h(t + lag) conj(h(t))] / E|h|^2, averaged
 * over the entries (lag in seconds). What a model's Doppler does to a channel estimate interpolated
 * between pilot symbols (estimation/time-error.ts).
 */

/** rho(lag): the real part of the entries' normalised time autocorrelation at `lag` seconds (1 at 0). */
export type TimeCorrelation = (lag: number) => number;

/** A channel that does not change in time: rho = 1 at every lag. */
export const STATIC_CHANNEL: TimeCorrelation = () => 1;

/**
 * The Bessel function J0(x) = (1 / pi) int_0^pi cos(x sin th) d th, by the trapezoidal rule, which
 * converges exponentially for this smooth periodic integrand once the points outnumber |x|: 64 +
 * 2|x| points give double precision for any x.
 */
export function besselJ0(x: number): number {
  const a = Math.abs(x);
  if (!Number.isFinite(a)) return Number.NaN;
  const n = 64 + 2 * Math.ceil(a);
  const h = Math.PI / n;
  let s = 0.5 * (1 + Math.cos(a * Math.sin(Math.PI)));
  for (let i = 1; i < n; i++) s += Math.cos(a * Math.sin(i * h));
  return s / n;
}

/** Clarke's (Jakes') time correlation of a Rayleigh path with maximum Doppler fD (Hz): J0(2 pi fD lag). */
export function jakesCorrelation(fD: number): TimeCorrelation {
  return fD === 0 ? STATIC_CHANNEL : (lag) => besselJ0(2 * Math.PI * fD * lag);
}
