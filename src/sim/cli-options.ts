/**
 * Parsing of the option values the simulate, detect and demo commands share: antenna
 * configurations, detector lists (numbers: src/cli/values.ts). Every bad value is an
 * InvalidArgumentError naming the option.
 */
import { intOption } from '../cli/values.js';
import { InvalidArgumentError } from '../core/errors.js';
import { SOFT_DETECTORS } from '../mimo/registry.js';
import { DETECTORS, MODULATIONS, type Detector, type Modulation } from '../mimo/types.js';
import type { SimDetector } from './types.js';

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

export function parseDetectorName(text: string): Detector {
  const t = text.trim().toLowerCase();
  if (!(DETECTORS as readonly string[]).includes(t)) {
    throw new InvalidArgumentError(`unknown detector '${text}' (one of ${DETECTORS.join(', ')})`);
  }
  return t as Detector;
}

/** Detectors that take a node budget (sphere and psd stop their search; ml and kbest refuse a size past it). */
export const BUDGET_DETECTORS: readonly Detector[] = ['sphere', 'psd', 'ml', 'kbest'];
/** Detectors whose search can stop at the budget, where onBudget decides what happens. */
export const SEARCH_DETECTORS: readonly Detector[] = ['sphere', 'psd'];

export interface DetectorParams {
  k?: number;
  passes?: number;
  llrClip?: number;
  maxNodes?: number;
  onBudget?: 'error' | 'flag';
}

/**
 * "zf,mmse,kbest:16,nway:2" -> detectors. A ":N" suffix sets K for kbest and the passes for nway,
 * so one run can compare several; otherwise --k / --passes / --llr-clip apply. --max-nodes goes to
 * the detectors with a node budget, --on-budget to the searches that can stop at it.
 */
export function parseDetectorList(text: string, params: DetectorParams): SimDetector[] {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) throw new InvalidArgumentError('--detector needs at least one detector name');
  if (items.length > 64) throw new InvalidArgumentError(`--detector lists ${items.length} detectors (at most 64)`);
  return items.map((item) => {
    const [name, arg, ...extra] = item.split(':');
    const detector = parseDetectorName(name!);
    const d: SimDetector = { detector };
    // Each parameter goes only to the detectors it belongs to.
    if (params.k !== undefined && detector === 'kbest') d.k = params.k;
    if (params.passes !== undefined && detector === 'nway') d.passes = params.passes;
    if (params.llrClip !== undefined && SOFT_DETECTORS.includes(detector)) d.llrClip = params.llrClip;
    if (params.maxNodes !== undefined && BUDGET_DETECTORS.includes(detector)) d.maxNodes = params.maxNodes;
    if (params.onBudget !== undefined && SEARCH_DETECTORS.includes(detector)) d.onBudget = params.onBudget;
    if (arg !== undefined) {
      if (extra.length > 0 || (detector !== 'kbest' && detector !== 'nway')) {
        throw new InvalidArgumentError(`detector '${item}': only kbest:K and nway:N take a parameter`);
      }
      const n = intOption(detector === 'kbest' ? 'detector kbest:K' : 'detector nway:N', arg, 0, 1, 1 << 16);
      if (detector === 'kbest') d.k = n;
      else d.passes = n;
    }
    return d;
  });
}
