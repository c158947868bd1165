/**
 * Run as a child process by native-free.test.ts: imports the package, runs its CPU paths (with
 * `auto` as the argument, the engine choice 'auto' where a call takes one, else 'cpu'), then prints
 * one JSON line: the native addons (.node files) this process has mapped, and whether a CUDA
 * device answered (asked only after the maps are read, since asking loads the bindings).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as api from '../../src/index.js';

const engine = process.argv[2] === 'auto' ? 'auto' : 'cpu';
const dir = mkdtempSync(join(tmpdir(), 'lattice-mimo-native-'));

try {
  // lattice: every algorithm, in this thread and on worker threads, and the integral ladder
  const bases = api.gaussianBases({ batch: 64, n: 8, seed: 1 });
  for (const algorithm of api.ALGORITHMS) await api.reduce(bases, { algorithm, engine, threads: 2 });
  api.reduceSync(api.gaussianBases({ batch: 2, n: 6, seed: 2 }), { algorithm: 'lll' });
  await api.reduce(api.gaussianBases({ batch: 4096, n: 4, seed: 3 }), { algorithm: 'allswap', engine, threads: 4 });
  await api.lllIntegral([
    [1, 0, 0, 12345],
    [0, 1, 0, 23456],
    [0, 0, 1, 34567],
  ]);
  api.formatFplll(api.parseFplllBasis('[[1 2][3 4]]'));
  // hostBatch() asks for a device (pinned memory where one answers): on the CPU engine's path only
  // where no device could answer, which 'auto' on a machine with one does not test
  if (engine === 'auto') await api.hostBatch({ batch: 2, rows: 4, cols: 4 });

  // detection: every detector, synchronous and through detectAsync
  const rng = new api.Philox(7);
  const H = api.rayleighChannels(rng, 8, 2, 2);
  const { symbols } = api.randomSymbols(rng, 8 * 2 * 2, 'qpsk');
  const y = api.addNoise(rng, api.transmit(H, symbols, 2, 2, 2), 0.1);
  const input = { nt: 2, nr: 2, H, y, vectorsPerChannel: 2, noiseVar: 0.1 };
  for (const detector of api.DETECTORS) {
    api.detect(input, { detector, modulation: 'qpsk' });
    await api.detectAsync(input, { detector, modulation: 'qpsk', engine });
  }

  // simulation on worker threads, uncoded and coded, with its outputs and plots (SVG and PNG)
  const result = await api.simulate({
    nt: 2,
    nr: 2,
    modulation: 'qpsk',
    detectors: [{ detector: 'zf' }, { detector: 'nway' }],
    snrs: [0, 10],
    maxVectors: 4096,
    unitVectors: 256,
    threads: 4,
    engine,
  });
  const files = { json: join(dir, 'run.json'), csv: join(dir, 'run.csv') };
  await api.writeOutputs(result, { ...files, plot: join(dir, 'run.png') }).catch(async (err: unknown) => {
    // a machine without a font draws no PNG (UnsupportedError, details.missing 'font'): the rest still runs here
    if (!(err instanceof api.UnsupportedError && err.details?.missing === 'font')) throw err;
    process.stderr.write('native-free probe: no font for a PNG plot; SVG only\n');
    await api.writeOutputs(result, files);
  });
  await api.writePlot(join(dir, 'run.svg'), result);
  await api.simulate({
    nt: 2,
    nr: 2,
    modulation: 'qpsk',
    detectors: [{ detector: 'nway' }],
    snrs: [2],
    code: 'wimax:576:1/2',
    maxVectors: 576,
    threads: 2,
    engine,
  });

  // coding: both decoders' families, synchronous and through decodeBatchAsync
  const code = api.ldpcCode('wimax:576:1/2');
  const llr = new Float64Array(2 * code.n).fill(4);
  code.decodeBatch(llr, 2);
  await api.decodeBatchAsync(code, llr, 2, { engine });
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const addons = [
  ...new Set(
    readFileSync('/proc/self/maps', 'utf8')
      .split('\n')
      .map((line) => line.trim().split(/\s+/).pop() ?? '')
      .filter((f) => f.endsWith('.node')),
  ),
];
// asked last: on a machine with a device, 'auto' runs may have loaded the bindings, as they should
const device = engine === 'auto' ? api.cudaAvailable().ok : false;
process.stdout.write(`${JSON.stringify({ addons, device })}\n`);
