/**
 * Parsing of the option values the simulate, detect and demo commands share: numbers, antenna
 * configurations, modulations (detector lists and flags: src/cli/detector-options.ts, from the
 * registry). Every bad value is an InvalidArgumentError naming the option.
 */
import { InvalidArgumentError } from '../core/errors.js';
import { MODULATIONS, type Modulation } from '../mimo/types.js';

/** An integer option in [min, max]; accepts 1e6-style notation. */
export function intOption(
  name: string,
  text: string | undefined,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (text === undefined) return fallback;
  const v = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(v) || v < min || v > max) {
    throw new InvalidArgumentError(`--${name} must be an integer in [${min}, ${max}], got '${text}'`);
  }
  return v;
}

/** A finite number option, with an optional strict lower bound. */
export function numberOption(
  name: string,
  text: string | undefined,
  opts: { above?: number } = {},
): number | undefined {
  if (text === undefined) return undefined;
  const v = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(v))
    throw new InvalidArgumentError(`--${name} must be a finite number, got '${text}'`);
  if (opts.above !== undefined && !(v > opts.above))
    throw new InvalidArgumentError(`--${name} must be > ${opts.above}, got '${text}'`);
  return v;
}

/** "4x4" -> {nt: 4, nr: 4} (transmit x receive antennas). */
export function parseMimo(text: string): { nt: number; nr: number } {
  const m = /^\s*(\d+)\s*x\s*(\d+)\s*$/i.exec(text);
  if (!m) throw new InvalidArgumentError(`--mimo must be NTxNR (transmit x receive antennas, e.g. 4x4), got '${text}'`);
  const nt = Number(m[1]),
    nr = Number(m[2]);
  if (nt < 1 || nr < 1 || nt > 64 || nr > 64)
    throw new InvalidArgumentError(`--mimo antennas must be in [1, 64], got '${text}'`);
  return { nt, nr };
}

export function parseModulationOption(text: string): Modulation {
  const t = text.trim().toLowerCase();
  const aliases: Record<string, Modulation> = {
    '4qam': 'qpsk',
    qam4: 'qpsk',
    qam16: '16qam',
    qam64: '64qam',
    qam256: '256qam',
  };
  const mod = aliases[t] ?? t;
  if (!(MODULATIONS as readonly string[]).includes(mod)) {
    throw new InvalidArgumentError(`--mod must be one of ${MODULATIONS.join(', ')}, got '${text}'`);
  }
  return mod as Modulation;
}
