/**
 * Our `sphere` detector against IT++'s sphere_decoding on the same inputs (both ML, hard output).
 *
 *   node dist/bench/itpp-sphere.js [--nt 4] [--nr 4] [--mod 16qam] [--snr 10,20] [--vectors 2000]
 *        [--vpc 1] [--reps 3] [--seed S]
 *
 * Inputs: iid Rayleigh channels, uniform symbols, AWGN at Es/N0 = snr; vpc vectors share a channel.
 * Ours: detect() in this process (validation, per-channel QR, search), after one warm-up run; the
 * median of the reps. IT++: the time inside its sphere_decoding calls as the harness measures it
 * (each call does its own factorisation: IT++ has no per-channel reuse), median of the reps;
 * initial radius sqrt(nr N0), enlarged x2 until success (rmax 1e4). Prints a markdown table with
 * vectors/s and the number of differing decisions.
 */
import { cpus } from 'node:os';
import { Philox } from '../src/core/rng.js';
import { addNoise, randomSymbols, transmit } from '../src/mimo/channel.js';
import { rayleighChannels } from '../src/channels/index.js';
import { detect } from '../src/mimo/detect.js';
import { itppAvailability, itppSphere } from './reference/itpp.js';
import { parseModulation } from '../src/mimo/modulation.js';
import { BenchArgs } from './args.js';
import type { DetectionInput, Modulation } from '../src/mimo/types.js';

interface Args {
  nt: number;
  nr: number;
  mod: Modulation;
  snrs: number[];
  vectors: number;
  vpc: number;
  reps: number;
  seed: number;
}

const USAGE =
  'node dist/bench/itpp-sphere.js [--nt 4] [--nr 4] [--mod 16qam] [--snr 10,20] [--vectors 2000] [--vpc 1] [--reps 3] [--seed S]';

function parseCommandLine(argv: string[]): Args {
  const cl = BenchArgs.parse('itpp-sphere', USAGE, ['nt', 'nr', 'mod', 'snr', 'vectors', 'vpc', 'reps', 'seed'], argv);
  const a: Args = {
    nt: cl.int('nt', 1, 16, 4),
    nr: cl.int('nr', 1, 16, 4),
    mod: parseModulation(cl.text('mod', '16qam')),
    snrs: cl.numbers('snr', -10, 60, [10, 20]),
    vectors: cl.int('vectors', 1, 10_000_000, 2000),
    vpc: cl.int('vpc', 1, 1_000_000, 1),
    reps: cl.int('reps', 1, 100, 3),
    seed: cl.int('seed', 0, 2 ** 47, Date.now() % 2 ** 31),
  };
  if (a.vectors % a.vpc !== 0) cl.fail(`--vpc ${a.vpc} must divide --vectors ${a.vectors}`);
  if (a.nr < a.nt) cl.fail('need nr >= nt');
  return a;
}

function median(xs: number[]): number {
  const s = [...xs].sort((p, q) => p - q);
  return s[s.length >> 1]!;
}

function inputs(a: Args, snrDb: number, stream: number): DetectionInput {
  const rng = new Philox(a.seed, stream);
  const channels = a.vectors / a.vpc;
  const H = rayleighChannels(rng, channels, a.nt, a.nr);
  const { symbols } = randomSymbols(rng, a.vectors * a.nt, a.mod);
  const n0 = 10 ** (-snrDb / 10);
  const y = addNoise(rng, transmit(H, symbols, a.nt, a.nr, a.vpc), n0);
  return { nt: a.nt, nr: a.nr, H, y, vectorsPerChannel: a.vpc, noiseVar: n0 };
}

function main(): number {
  const a = parseCommandLine(process.argv.slice(2));
  const avail = itppAvailability();
  if (!avail.ok) {
    process.stderr.write(`itpp-sphere: ${avail.reason}\n`);
    return 1;
  }
  const rows: string[] = [];
  a.snrs.forEach((snr, k) => {
    const input = inputs(a, snr, k + 1);
    detect(inputs({ ...a, vectors: Math.min(a.vectors, 200 * a.vpc) }, snr, 1000 + k), {
      detector: 'sphere',
      modulation: a.mod,
    }); // warm-up
    const ours: number[] = [],
      theirs: number[] = [];
    let oursSymbols: Int32Array | null = null;
    let ref = null as ReturnType<typeof itppSphere> | null;
    for (let r = 0; r < a.reps; r++) {
      const t0 = performance.now();
      oursSymbols = detect(input, { detector: 'sphere', modulation: a.mod }).symbols;
      ours.push((performance.now() - t0) / 1000);
      ref = itppSphere(input, a.mod, { rmax: 1e4, timeoutMs: 600_000 });
      theirs.push(ref.seconds);
      process.stderr.write(
        `snr ${snr} dB rep ${r + 1}/${a.reps}: ours ${ours[r]!.toFixed(3)} s, IT++ ${ref.seconds.toFixed(3)} s\n`,
      );
    }
    let differ = 0;
    for (let i = 0; i < oursSymbols!.length; i++) if (oursSymbols![i] !== ref!.symbols[i]) differ++;
    const vOurs = a.vectors / median(ours),
      vTheirs = a.vectors / median(theirs);
    rows.push(
      `| ${a.nt}x${a.nr} ${a.mod} | ${snr} dB | ${a.vectors} (${a.vpc}/channel) | ${vOurs.toFixed(0)} | ${vTheirs.toFixed(0)} | ${(vOurs / vTheirs).toFixed(2)} | ${differ} | ${ref!.failures} |`,
    );
  });
  console.log(
    `IT++ sphere_decoding vs lattice-mimo sphere (CPU, one thread; ${cpus()[0]?.model ?? 'unknown CPU'}; seed ${a.seed})\n`,
  );
  console.log(
    '| system | Es/N0 | vectors | ours (vectors/s) | IT++ (vectors/s) | ours / IT++ | differing symbols | IT++ failures |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  return 0;
}

process.exitCode = main();
