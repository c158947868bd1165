/**
 * Parsing of the option values the simulate, detect and bench commands share: antenna
 * configurations and modulations (numbers: values.ts; detector lists and flags:
 * detector-options.ts, from the registry). Every bad value is an InvalidArgumentError naming the
 * option.
 */
import { InvalidArgumentError } from '../core/index.js';
import { MODULATIONS, type Modulation } from '../mimo/index.js';

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
