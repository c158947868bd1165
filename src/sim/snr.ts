/**
 * SNR lists as users write them: "0:2:24" (start:step:stop, stop included) or "0,5,10.5".
 */
import { InvalidArgumentError } from '../core/index.js';

/** Most SNR points one run may ask for (a bound on every loop below). */
export const MAX_SNR_POINTS = 1000;

function parseNumber(text: string, what: string): number {
  const t = text.trim();
  const v = t === '' ? NaN : Number(t);
  if (!Number.isFinite(v)) throw new InvalidArgumentError(`${what}: '${text}' is not a finite number`);
  return v;
}

/** Parses "start:step:stop" (inclusive) or a comma list of dB values. */
export function parseSnrList(text: string): number[] {
  const spec = text.trim();
  if (spec === '') throw new InvalidArgumentError('SNR list is empty');
  if (spec.includes(':')) {
    const parts = spec.split(':');
    if (parts.length !== 3) throw new InvalidArgumentError(`SNR range '${text}' must be start:step:stop`);
    const [start, step, stop] = parts.map((p, i) => parseNumber(p, `SNR range ${['start', 'step', 'stop'][i]}`)) as [
      number,
      number,
      number,
    ];
    if (step === 0) throw new InvalidArgumentError(`SNR range '${text}': step must not be 0`);
    if ((stop - start) / step < 0) throw new InvalidArgumentError(`SNR range '${text}': step goes away from stop`);
    // A small tolerance so 0:0.1:1 includes 1 despite rounding.
    const count = Math.floor((stop - start) / step + 1e-9) + 1;
    if (count > MAX_SNR_POINTS)
      throw new InvalidArgumentError(`SNR range '${text}' has ${count} points (at most ${MAX_SNR_POINTS})`);
    // Round to 12 significant digits so 0.1 steps print as 0.3, not 0.30000000000000004.
    return Array.from({ length: count }, (_, i) => Number((start + i * step).toPrecision(12)));
  }
  const values = spec.split(',').map((p) => parseNumber(p, 'SNR value'));
  if (values.length > MAX_SNR_POINTS)
    throw new InvalidArgumentError(`SNR list has ${values.length} points (at most ${MAX_SNR_POINTS})`);
  return values;
}

/** Es/N0 in dB from an SNR of either kind (uncoded unless codeRate says otherwise). */
export function toEsN0Db(snrDb: number, snrType: 'esn0' | 'ebn0', bitsPerSymbol: number, codeRate = 1): number {
  return snrType === 'esn0' ? snrDb : snrDb + 10 * Math.log10(bitsPerSymbol * codeRate);
}

/** Eb/N0 in dB from an SNR of either kind. */
export function toEbN0Db(snrDb: number, snrType: 'esn0' | 'ebn0', bitsPerSymbol: number, codeRate = 1): number {
  return snrType === 'ebn0' ? snrDb : snrDb - 10 * Math.log10(bitsPerSymbol * codeRate);
}
