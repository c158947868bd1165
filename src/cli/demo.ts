/**
 * `lattice-mimo demo` (npm start): a short simulation with the live table, then the BER / FER plot
 * (SVG and PNG) and the JSON of the points under out/.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError, UnsupportedError, checkOutputPath, toIoError, writeFileAtomic, Philox } from '../core/index.js';
import { detect, type Detector, type Modulation, cudaDetectors } from '../mimo/index.js';
import { intOption } from './values.js';
import {
  resultToJson,
  renderPlotSvg,
  svgToPng,
  simulateWithTable,
  resolveEngine,
  type SimDetector,
} from '../sim/index.js';
import { parseCommandLine } from './args.js';

const DEMO_HELP = `usage: lattice-mimo demo [--out DIR] [--threads N] [--seed S]

A short simulation (4x4 MIMO, 16-QAM, iid Rayleigh, uncoded, Es/N0 0:4:24 dB) of the detectors that are
available among zf, mmse, sic, sphere, kbest, nway (on a CUDA device: those with a CUDA implementation,
the whole link on the GPU), with the live table on stderr; then writes
DIR/demo-ber.svg, DIR/demo-ber.png and DIR/demo.json (DIR defaults to out).
`;

const DEMO = {
  nt: 4,
  nr: 4,
  modulation: '16qam' as Modulation,
  snrs: [0, 4, 8, 12, 16, 20, 24],
  maxErrors: 300,
  maxVectors: 40_960,
  chunkVectors: 1024,
  candidates: [
    { detector: 'zf' },
    { detector: 'mmse' },
    { detector: 'sic' },
    { detector: 'sphere' },
    { detector: 'kbest', k: 8 },
    { detector: 'nway', passes: 4 },
  ] as SimDetector[],
};

/** Null when the detector runs on a small random problem of the demo's size, else why not. */
function unavailableReason(d: SimDetector): string | null {
  const { nt, nr, modulation } = DEMO;
  const rng = new Philox(0, 0);
  const H = rng.fillNormal(new Float64Array(2 * nr * nt), Math.SQRT1_2);
  const y = rng.fillNormal(new Float64Array(2 * nr));
  try {
    const { label: _label, ...opts } = d;
    detect({ nt, nr, H, y, noiseVar: 0.1 }, { ...opts, detector: d.detector as Detector, modulation, engine: 'cpu' });
    return null;
  } catch (err) {
    const { code, message } = describeError(err);
    return `${code}: ${message}`;
  }
}

export async function run(argv: string[]): Promise<number> {
  const { values: v } = parseCommandLine(
    argv,
    {
      out: { type: 'string' },
      threads: { type: 'string' },
      seed: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    } as const,
    { command: 'demo' },
  );
  if (v.help) {
    process.stdout.write(DEMO_HELP);
    return 0;
  }
  const outDir = v.out ?? 'out';
  const seed = intOption('seed', v.seed, 1, 0);
  const threads = v.threads !== undefined ? intOption('threads', v.threads, 0, 1, 256) : undefined;
  // The output directory is made (and checked) before the simulation runs.
  await mkdir(outDir, { recursive: true }).catch((err: unknown) => {
    throw toIoError(err, `create directory ${outDir}`);
  });
  for (const f of ['demo-ber.svg', 'demo-ber.png', 'demo.json']) checkOutputPath('out', join(outDir, f));
  const reasons = DEMO.candidates.map((d) => unavailableReason(d));
  const available = DEMO.candidates.filter((_, i) => reasons[i] === null);
  // On a GPU the demo runs the detectors that have a CUDA implementation there (the whole link on
  // the device); without one, or without any such detector, every available one on the CPU.
  const onGpu = available.filter((d) => cudaDetectors().includes(d.detector));
  const choice = onGpu.length > 0 ? await resolveEngine('auto', onGpu) : await resolveEngine('cpu', available);
  const engine = choice.engine;
  const detectors = engine === 'cuda' ? onGpu : available;
  const skipped = DEMO.candidates.flatMap((d, i) => (reasons[i] === null ? [] : [`${d.detector} (${reasons[i]})`]));
  if (engine === 'cuda')
    for (const d of available) if (!onGpu.includes(d)) skipped.push(`${d.detector} (no CUDA implementation)`);
  process.stderr.write(
    `demo: ${DEMO.nt}x${DEMO.nr} ${DEMO.modulation.toUpperCase()}, iid Rayleigh, uncoded; engine ${engine} (${onGpu.length > 0 ? choice.reason : 'auto: no CUDA implementation of these detectors'})\n` +
      `detectors: ${detectors.map((d) => d.detector).join(', ')}${skipped.length ? `; not available: ${skipped.join(', ')}` : ''}\n`,
  );
  if (detectors.length === 0) throw new UnsupportedError('no detector is available for the demo');
  const options = {
    nt: DEMO.nt,
    nr: DEMO.nr,
    modulation: DEMO.modulation,
    detectors,
    snrs: DEMO.snrs,
    snrType: 'esn0' as const,
    maxErrors: DEMO.maxErrors,
    maxVectors: DEMO.maxVectors,
    chunkVectors: DEMO.chunkVectors,
    seed,
    engine,
    ...(threads !== undefined ? { threads } : {}),
  };
  const result = await simulateWithTable(options);
  const [svgFile, pngFile, jsonFile] = [
    join(outDir, 'demo-ber.svg'),
    join(outDir, 'demo-ber.png'),
    join(outDir, 'demo.json'),
  ];
  // the counts first, then the plots: a PNG that cannot be drawn (no font) loses nothing else
  await writeFileAtomic(jsonFile, resultToJson(result));
  const svg = await renderPlotSvg(result);
  await writeFileAtomic(svgFile, svg);
  await writeFileAtomic(pngFile, await svgToPng(svg));
  process.stderr.write(`wrote ${svgFile}, ${pngFile}, ${jsonFile}\n`);
  return 0;
}
