/**
 * `lattice-mimo detect`: detection of received vectors given as JSON.
 *
 * Input  {"H": [H_0, H_1, ...], "y": [y_0, y_1, ...]}: one channel per vector, H_v = nr rows of nt
 *        [re, im] pairs, y_v = nr [re, im] pairs.
 * Output {"symbols": [[...nt indices]], "bits": [[...nt * bitsPerSymbol]], "llr": [[...]]} per vector
 *        (llr only for soft detectors; LLR > 0 means bit 0), plus the detector and modulation.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { InvalidArgumentError, InvalidInputError } from '../core/errors.js';
import { detect } from '../mimo/detect.js';
import { bitsPerSymbolOf } from '../mimo/modulation.js';
import type { DetectionInput, DetectOptions } from '../mimo/types.js';
import { intOption, numberOption, parseDetectorName, parseModulationOption } from '../sim/cli-options.js';
import { resolveEngine } from '../sim/simulate.js';

export const DETECT_HELP = `usage: lattice-mimo detect --detector NAME --mod MOD --noise-var N0 [options] < in.json > out.json

Detects received vectors y = H s + w. in.json: {"H": [...], "y": [...]} with one H per vector
(nr rows of nt [re, im] pairs) and one y per vector (nr [re, im] pairs).
out.json: {"symbols": [[...]], "bits": [[...]], "llr": [[...]]}, one row per vector (llr only for soft
detectors: ml, kbest, ssfe, nway; LLR = ln P(b=0|y)/P(b=1|y)).

options:
  --detector NAME     zf, mmse, sic, ml, sphere, psd, kbest, ssfe, nway, lr-zf, lr-mmse, lr-sic
  --mod MOD           bpsk | qpsk | 16qam | 64qam | 256qam
  --noise-var N0      complex noise variance per receive antenna (> 0)
  --k K               K for kbest
  --passes N          passes for nway
  --llr-clip C        |LLR| clipping for soft detectors
  --soft S            maxlog (default) | logmap (exact, ml) | none (hard decisions only, no llr)
  --engine auto|cpu|cuda   (default auto)
  --input FILE        read the JSON from FILE instead of stdin
  --output FILE       write the JSON to FILE instead of stdout
  -h, --help          this text
`;

const OPTIONS = {
  detector: { type: 'string' }, mod: { type: 'string' }, 'noise-var': { type: 'string' }, k: { type: 'string' },
  passes: { type: 'string' }, 'llr-clip': { type: 'string' }, soft: { type: 'string' }, engine: { type: 'string' }, input: { type: 'string' },
  output: { type: 'string' }, help: { type: 'boolean', short: 'h' },
} as const;

/** Most vectors one JSON input may hold (a bound, and a guard against runaway memory). */
const MAX_VECTORS = 10_000_000;

function pair(v: unknown, where: string): [number, number] {
  if (!Array.isArray(v) || v.length !== 2) throw new InvalidInputError('SHAPE_MISMATCH', `${where} must be a [re, im] pair`);
  const [re, im] = v as unknown[];
  if (typeof re !== 'number' || typeof im !== 'number') throw new InvalidInputError('INVALID_INPUT', `${where} must hold two numbers`);
  if (!Number.isFinite(re) || !Number.isFinite(im)) throw new InvalidInputError('NON_FINITE', `${where} is not finite`);
  return [re, im];
}

/** Parses and validates the detect JSON into a DetectionInput (noise variance added by the caller). */
export function parseDetectionJson(text: string): Omit<DetectionInput, 'noiseVar'> & { vectors: number } {
  if (text.trim() === '') throw new InvalidInputError('INVALID_INPUT', 'input is empty: expected a JSON object {"H": [...], "y": [...]}');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new InvalidInputError('PARSE_ERROR', `input is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new InvalidInputError('INVALID_INPUT', 'input must be a JSON object {"H": [...], "y": [...]}');
  const { H: Hs, y: ys } = doc as { H?: unknown; y?: unknown };
  if (!Array.isArray(Hs)) throw new InvalidInputError('INVALID_INPUT', 'input lacks "H", an array with one channel matrix per vector');
  if (!Array.isArray(ys)) throw new InvalidInputError('INVALID_INPUT', 'input lacks "y", an array with one received vector per vector');
  if (Hs.length === 0) throw new InvalidInputError('INVALID_INPUT', '"H" is empty');
  if (Hs.length !== ys.length) throw new InvalidInputError('SHAPE_MISMATCH', `"H" has ${Hs.length} matrices but "y" has ${ys.length} vectors (one H per vector)`);
  if (Hs.length > MAX_VECTORS) throw new InvalidArgumentError(`at most ${MAX_VECTORS} vectors per input, got ${Hs.length}`);
  const H0 = Hs[0];
  if (!Array.isArray(H0) || H0.length === 0 || !Array.isArray(H0[0]) || (H0[0] as unknown[]).length === 0) {
    throw new InvalidInputError('SHAPE_MISMATCH', 'H[0] must be a non-empty array of rows, each an array of [re, im] pairs');
  }
  const nr = H0.length, nt = (H0[0] as unknown[]).length;
  if (nr > 64 || nt > 64) throw new InvalidArgumentError(`H is ${nr} x ${nt}: at most 64 x 64`);
  if (nr < nt) throw new InvalidInputError('SHAPE_MISMATCH', `H[0] is ${nr} x ${nt}: needs at least as many rows (receive antennas) as columns (streams)`);
  const vectors = Hs.length;
  const H = new Float64Array(2 * vectors * nr * nt);
  const y = new Float64Array(2 * vectors * nr);
  for (let v = 0; v < vectors; v++) {
    const Hv = Hs[v];
    if (!Array.isArray(Hv) || Hv.length !== nr) throw new InvalidInputError('SHAPE_MISMATCH', `H[${v}] must have ${nr} rows like H[0]`);
    for (let i = 0; i < nr; i++) {
      const row = Hv[i];
      if (!Array.isArray(row) || row.length !== nt) throw new InvalidInputError('SHAPE_MISMATCH', `H[${v}] row ${i} must have ${nt} [re, im] entries like H[0]`);
      for (let j = 0; j < nt; j++) {
        const [re, im] = pair(row[j], `H[${v}] row ${i} column ${j}`);
        const at = 2 * (v * nr * nt + i + j * nr); // column-major
        H[at] = re; H[at + 1] = im;
      }
    }
    const yv = ys[v];
    if (!Array.isArray(yv) || yv.length !== nr) throw new InvalidInputError('SHAPE_MISMATCH', `y[${v}] must have ${nr} [re, im] entries (one per receive antenna)`);
    for (let i = 0; i < nr; i++) {
      const [re, im] = pair(yv[i], `y[${v}] entry ${i}`);
      y[2 * (v * nr + i)] = re; y[2 * (v * nr + i) + 1] = im;
    }
  }
  return { nt, nr, H, y, vectorsPerChannel: 1, vectors };
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new InvalidArgumentError('no input: pipe the JSON on stdin or give --input FILE');
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function run(argv: string[]): Promise<number> {
  const { values: v } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false });
  if (v.help) { process.stdout.write(DETECT_HELP); return 0; }
  if (v.detector === undefined) throw new InvalidArgumentError('--detector is required (see --help)');
  if (v.mod === undefined) throw new InvalidArgumentError('--mod is required (see --help)');
  if (v['noise-var'] === undefined) throw new InvalidArgumentError('--noise-var is required (see --help)');
  const detector = parseDetectorName(v.detector);
  const modulation = parseModulationOption(v.mod);
  const noiseVar = numberOption('noise-var', v['noise-var'], { above: 0 })!;
  const engine = v.engine ?? 'auto';
  if (engine !== 'auto' && engine !== 'cpu' && engine !== 'cuda') throw new InvalidArgumentError(`--engine must be auto, cpu or cuda, got '${engine}'`);
  resolveEngine(engine);
  const opts: DetectOptions = { detector, modulation, engine: 'cpu' };
  if (v.k !== undefined) opts.k = intOption('k', v.k, 0, 1, 1 << 16);
  if (v.passes !== undefined) opts.passes = intOption('passes', v.passes, 0, 1, 64);
  const clip = numberOption('llr-clip', v['llr-clip'], { above: 0 });
  if (clip !== undefined) opts.llrClip = clip;
  if (v.soft !== undefined) opts.soft = v.soft as DetectOptions['soft']; // validated by detect()

  const text = v.input !== undefined ? await readFile(v.input, 'utf8') : await readStdin();
  const input = parseDetectionJson(text);
  const result = detect({ ...input, noiseVar }, opts);

  const nt = input.nt, bps = bitsPerSymbolOf(modulation);
  const rows = <A extends ArrayLike<number>>(a: A, width: number): number[][] =>
    Array.from({ length: input.vectors }, (_, r) => Array.from({ length: width }, (_, c) => a[r * width + c]!));
  const out: Record<string, unknown> = {
    detector, modulation, nt, nr: input.nr, noiseVar,
    symbols: rows(result.symbols, nt),
    bits: rows(result.bits, nt * bps),
  };
  if (result.llr) out.llr = rows(result.llr, nt * bps);
  const json = JSON.stringify(out) + '\n';
  if (v.output !== undefined) await writeFile(v.output, json);
  else process.stdout.write(json);
  return 0;
}
