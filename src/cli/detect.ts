/**
 * `lattice-mimo detect`: detection of received vectors given as JSON.
 *
 * Input  {"H": [H_0, H_1, ...], "y": [y_0, y_1, ...]}: one channel per vector, H_v = nr rows of nt
 *        [re, im] pairs, y_v = nr [re, im] pairs.
 * Output {"symbols": [[...nt indices]], "bits": [[...nt * bitsPerSymbol]], "llr": [[...]]} per vector
 *        (llr only for soft detectors; LLR > 0 means bit 0), plus the detector and modulation, and
 *        "unproven" (0/1 per vector) when --on-budget flag let a search stop at its node budget.
 */
import { InvalidArgumentError, InvalidInputError, checkOutputPath, readInput, writeOutput } from '../core/index.js';
import { detectAsync, bitsPerSymbolOf, type DetectionInput, type DetectOptions } from '../mimo/index.js';
import { parseModulationOption } from './mimo-values.js';
import { intOption, numberOption } from './values.js';
import { parseCommandLine, rejectInapplicable } from './args.js';
import {
  checkFlagsApply,
  detectorFlags,
  detectorFlagsHelp,
  detectorsHelp,
  flagOptions,
  parseDetectorName,
} from './detector-options.js';
import { givenFlags, helpLine, parseFlags, withFlags } from './option-flags.js';

/** Where help puts the text of an option. */
const COLUMN = 22;

/** The common detector options `detect` takes as flags (the detector and modulation are its own). */
const COMMON_FLAGS = ['engine', 'soft', 'llrClip', 'maxNodes', 'onBudget', 'cpuKernel'] as const;

/** The text of `lattice-mimo detect --help`, its detector lines read from the registry. */
export function detectHelp(): string {
  const flags = detectorFlags(COMMON_FLAGS);
  const line = (left: string, text: string) => helpLine(left, text, COLUMN);
  return `usage: lattice-mimo detect --detector NAME --mod MOD --noise-var N0 [options] < in.json > out.json

Detects received vectors y = H s + w. in.json: {"H": [...], "y": [...]} with one H per channel
(nr rows of nt [re, im] pairs) and one y per vector (nr [re, im] pairs); vector v uses channel
floor(v / vectors-per-channel) (default: one H per vector, or y's count over H's when it divides).
out.json: {"symbols": [[...]], "bits": [[...]], "llr": [[...]]}, one row per vector (llr only for soft
detectors, those marked soft below; LLR = ln P(b=0|y)/P(b=1|y)).

options:
${line('--detector NAME', 'one of the detectors below')}
${line('--mod MOD', 'bpsk | qpsk | 16qam | 64qam | 256qam')}
${line('--noise-var N0', 'complex noise variance per receive antenna (>= 0; > 0 for soft output); or "noiseVar" in in.json: one number, or one per vector (not both)')}
${line('--vectors-per-channel N', "consecutive vectors sharing one H (the API's vectorsPerChannel)")}
${detectorFlagsHelp(flags, COLUMN)}
${line('--input FILE', "read the JSON from FILE instead of stdin ('-' for stdin)")}
${line('--output FILE', "write the JSON to FILE, atomically, instead of stdout ('-' for stdout)")}
${line('-h, --help', 'this text')}

detectors:
${detectorsHelp(COLUMN)}

Every option is checked before the input is read. An option that does not apply to the detector
(--k without kbest, --psd-levels without psd, ...) is an error. Shapes (nr, nt, nr < nt included)
and values are checked by the library's detect(), as for API callers.
`;
}

const OPTIONS = {
  detector: { type: 'string' },
  mod: { type: 'string' },
  'noise-var': { type: 'string' },
  'vectors-per-channel': { type: 'string' },
  input: { type: 'string' },
  output: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Most vectors one JSON input may hold (a bound, and a guard against runaway memory). */
const MAX_VECTORS = 10_000_000;

function pair(v: unknown, where: string): [number, number] {
  if (!Array.isArray(v) || v.length !== 2)
    throw new InvalidInputError('SHAPE_MISMATCH', `${where} must be a [re, im] pair`);
  const [re, im] = v as unknown[];
  if (typeof re !== 'number' || typeof im !== 'number')
    throw new InvalidInputError('INVALID_INPUT', `${where} must hold two numbers`);
  if (!Number.isFinite(re) || !Number.isFinite(im)) throw new InvalidInputError('NON_FINITE', `${where} is not finite`);
  return [re, im];
}

/**
 * Parses the detect JSON into a DetectionInput (noise variance and vectors per channel added by the
 * caller): forms and finiteness here, the pairing of H and y and the sizes in detect().
 */
export function parseDetectionJson(
  text: string,
): Omit<DetectionInput, 'noiseVar'> & { vectors: number; noiseVar?: number | Float64Array } {
  if (text.trim() === '')
    throw new InvalidInputError('INVALID_INPUT', 'input is empty: expected a JSON object {"H": [...], "y": [...]}');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new InvalidInputError('PARSE_ERROR', `input is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new InvalidInputError('INVALID_INPUT', 'input must be a JSON object {"H": [...], "y": [...]}');
  const { H: Hs, y: ys } = doc as { H?: unknown; y?: unknown };
  if (!Array.isArray(Hs))
    throw new InvalidInputError('INVALID_INPUT', 'input lacks "H", an array with one channel matrix per vector');
  if (!Array.isArray(ys))
    throw new InvalidInputError('INVALID_INPUT', 'input lacks "y", an array with one received vector per vector');
  if (Hs.length === 0) throw new InvalidInputError('INVALID_INPUT', '"H" is empty');
  if (ys.length === 0) throw new InvalidInputError('INVALID_INPUT', '"y" is empty');
  if (ys.length > MAX_VECTORS || Hs.length > MAX_VECTORS)
    throw new InvalidArgumentError(`at most ${MAX_VECTORS} vectors per input, got ${Math.max(ys.length, Hs.length)}`);
  const H0 = Hs[0];
  if (!Array.isArray(H0) || H0.length === 0 || !Array.isArray(H0[0]) || (H0[0] as unknown[]).length === 0) {
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      'H[0] must be a non-empty array of rows, each an array of [re, im] pairs',
    );
  }
  const nr = H0.length,
    nt = (H0[0] as unknown[]).length;
  if (nr > 64 || nt > 64) throw new InvalidArgumentError(`H is ${nr} x ${nt}: at most 64 x 64`);
  const vectors = ys.length,
    channels = Hs.length;
  const H = new Float64Array(2 * channels * nr * nt);
  const y = new Float64Array(2 * vectors * nr);
  for (let v = 0; v < channels; v++) {
    const Hv = Hs[v];
    if (!Array.isArray(Hv) || Hv.length !== nr)
      throw new InvalidInputError('SHAPE_MISMATCH', `H[${v}] must have ${nr} rows like H[0]`);
    for (let i = 0; i < nr; i++) {
      const row = Hv[i];
      if (!Array.isArray(row) || row.length !== nt)
        throw new InvalidInputError('SHAPE_MISMATCH', `H[${v}] row ${i} must have ${nt} [re, im] entries like H[0]`);
      for (let j = 0; j < nt; j++) {
        const [re, im] = pair(row[j], `H[${v}] row ${i} column ${j}`);
        const at = 2 * (v * nr * nt + i + j * nr); // column-major
        H[at] = re;
        H[at + 1] = im;
      }
    }
  }
  for (let v = 0; v < vectors; v++) {
    const yv = ys[v];
    if (!Array.isArray(yv) || yv.length !== nr)
      throw new InvalidInputError(
        'SHAPE_MISMATCH',
        `y[${v}] must have ${nr} [re, im] entries (one per receive antenna)`,
      );
    for (let i = 0; i < nr; i++) {
      const [re, im] = pair(yv[i], `y[${v}] entry ${i}`);
      y[2 * (v * nr + i)] = re;
      y[2 * (v * nr + i) + 1] = im;
    }
  }
  const nv = (doc as { noiseVar?: unknown }).noiseVar;
  let noiseVar: number | Float64Array | undefined;
  if (typeof nv === 'number') noiseVar = nv;
  else if (Array.isArray(nv)) {
    noiseVar = new Float64Array(nv.length);
    nv.forEach((x, i) => {
      if (typeof x !== 'number') throw new InvalidInputError('INVALID_INPUT', `"noiseVar"[${i}] must be a number`);
      (noiseVar as Float64Array)[i] = x;
    });
  } else if (nv !== undefined)
    throw new InvalidInputError('INVALID_INPUT', '"noiseVar" must be a number or an array with one number per vector');
  return { nt, nr, H, y, vectors, ...(noiseVar !== undefined ? { noiseVar } : {}) };
}

export interface DetectCommand {
  opts: DetectOptions;
  noiseVar?: number;
  vectorsPerChannel?: number;
  input?: string;
  output?: string;
  help: boolean;
}

/** Parses and checks every option (no input read). */
export function parseDetectArgs(argv: string[]): DetectCommand {
  const flags = detectorFlags(COMMON_FLAGS);
  const { values: v, given } = parseCommandLine(argv, withFlags(OPTIONS, flags), { command: 'detect' });
  if (v.help) return { opts: {} as DetectOptions, noiseVar: 0, help: true };
  if (v.detector === undefined) throw new InvalidArgumentError('--detector is required (see --help)');
  if (v.mod === undefined) throw new InvalidArgumentError('--mod is required (see --help)');
  const detector = parseDetectorName(v.detector as string);
  const modulation = parseModulationOption(v.mod as string);
  const noiseVar = numberOption('noise-var', v['noise-var'] as string | undefined);
  if (noiseVar !== undefined && noiseVar < 0)
    throw new InvalidArgumentError(`--noise-var must be >= 0 (a variance), got '${v['noise-var']}'`);
  const set = givenFlags(v, flags);
  checkFlagsApply(detector, set);
  rejectInapplicable(given, ['llr-clip'], v.soft !== 'none', '--soft none computes no LLRs');
  const opts = { detector, modulation, ...flagOptions(detector, parseFlags(v, set)) } as DetectOptions;
  opts.engine ??= 'auto';
  const vpc =
    v['vectors-per-channel'] === undefined
      ? undefined
      : intOption('vectors-per-channel', v['vectors-per-channel'] as string, 0, 1, MAX_VECTORS);
  const output = v.output as string | undefined;
  if (output !== undefined) checkOutputPath('output', output);
  return { opts, noiseVar, vectorsPerChannel: vpc, input: v.input as string | undefined, output, help: false };
}

export async function run(argv: string[]): Promise<number> {
  const cmd = parseDetectArgs(argv);
  if (cmd.help) {
    process.stdout.write(detectHelp());
    return 0;
  }
  const { opts } = cmd;
  const text = await readInput(cmd.input, 'pipe the JSON on stdin or give --input FILE');
  const input = parseDetectionJson(text);
  if (cmd.noiseVar !== undefined && input.noiseVar !== undefined)
    throw new InvalidArgumentError('the noise variance is given twice: --noise-var and "noiseVar" in the input');
  const noiseVar = cmd.noiseVar ?? input.noiseVar;
  if (noiseVar === undefined)
    throw new InvalidArgumentError('no noise variance: give --noise-var N0 or "noiseVar" in the input (see --help)');
  const result = await detectAsync(
    {
      ...input,
      noiseVar,
      ...(cmd.vectorsPerChannel !== undefined ? { vectorsPerChannel: cmd.vectorsPerChannel } : {}),
    },
    opts,
  );

  const nt = input.nt,
    bps = bitsPerSymbolOf(opts.modulation);
  const rows = <A extends ArrayLike<number>>(a: A, width: number): number[][] =>
    Array.from({ length: input.vectors }, (_, r) => Array.from({ length: width }, (_, c) => a[r * width + c]!));
  const out: Record<string, unknown> = {
    detector: opts.detector,
    modulation: opts.modulation,
    nt,
    nr: input.nr,
    noiseVar: typeof noiseVar === 'number' ? noiseVar : [...noiseVar],
    symbols: rows(result.symbols, nt),
    bits: rows(result.bits, nt * bps),
  };
  if (result.llr) out.llr = rows(result.llr, nt * bps);
  if (result.unproven) out.unproven = [...result.unproven];
  await writeOutput(cmd.output ?? '-', `${JSON.stringify(out)}\n`);
  return 0;
}
