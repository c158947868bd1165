/**
 * The CPU engine's detectors on their WebAssembly SIMD kernel against the TypeScript reference, in
 * one process on the same inputs (one thread): vectors per CPU second of detect() (validation,
 * scaling, preprocessing, search, LLRs: the whole call), median of `reps` alternating calls after
 * two warm-up calls of each (the second lets V8 finish optimizing the kernel), and whether the two
 * agree (differing symbols, largest LLR difference). The speed-up is the ratio of the medians and,
 * in parentheses, the median of the ratios of neighbouring calls (on a shared machine the two calls
 * of a pair see the same load).
 *
 * `--against ROOT` names another build of the project (a repository root whose `dist/` is built):
 * its detect() on the kernel joins the alternation on the same input, and the row gains its rate,
 * its speed-up over this build's TypeScript (median of neighbouring calls' ratios) and this
 * kernel's speed-up over it, so that an A/B of two kernels shares one process and one load.
 *
 * Run it without --expose-gc: gc() before each call lets process.cpuUsage count V8's background
 * collector threads, unevenly between the kernels.
 *
 * Usage: node dist/bench/mimo/wasm-detect.js [--detectors nway,sphere] [--mimo 4x4] [--mod 16qam]
 *        [--snr 20] [--vectors 8400] [--vpc 1,14] [--reps 7] [--seed 1] [--against ROOT]
 *
 * Any detector whose traits say `wasmKernel` runs on both paths: nway (nway:N for N passes), ssfe,
 * kbest (kbest:K for K paths a level; default 16), sphere, zf, mmse, sic, and lr-zf, lr-mmse, lr-sic (their
 * channels' LLL on the lattice part's kernel).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Philox } from '../../src/core/rng.js';
import { addNoise, randomSymbols, snrToNoiseVar, transmit } from '../../src/mimo/channel.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { detect } from '../../src/mimo/detect.js';
import { bitsPerSymbolOf, parseModulation } from '../../src/mimo/modulation.js';
import { detectorEntry } from '../../src/mimo/registry.js';
import type { DetectionInput, DetectionResult, Detector, DetectOptions } from '../../src/mimo/types.js';
import { cpuDescription, gitCommit, median } from '../report.js';

const { values } = parseArgs({
  options: {
    detectors: { type: 'string', default: 'nway,sphere' },
    mimo: { type: 'string', default: '4x4' },
    mod: { type: 'string', default: '16qam' },
    snr: { type: 'string', default: '20' },
    vectors: { type: 'string', default: '8400' },
    vpc: { type: 'string', default: '1,14' },
    reps: { type: 'string', default: '7' },
    seed: { type: 'string', default: '1' },
    against: { type: 'string' },
  },
});
const [nt, nr] = values.mimo.split('x').map(Number) as [number, number];
const mod = parseModulation(values.mod);
const snr = Number(values.snr),
  vectors = Number(values.vectors),
  reps = Number(values.reps),
  seed = Number(values.seed);

function input(vpc: number): DetectionInput {
  const rng = new Philox(seed, vpc);
  const H = rayleighChannels(rng, Math.ceil(vectors / vpc), nt, nr);
  const { symbols } = randomSymbols(rng, vectors * nt, mod);
  const noiseVar = snrToNoiseVar(snr, 'esn0', bitsPerSymbolOf(mod));
  return { nt, nr, H, y: addNoise(rng, transmit(H, symbols, nt, nr, vpc), noiseVar), vectorsPerChannel: vpc, noiseVar };
}

const gc = (globalThis as { gc?: () => void }).gc;

/**
 * CPU milliseconds of one call, and its result. With --expose-gc a full collection first, so that
 * the collection of one call's garbage (the reference's) is not counted in the next call's time.
 */
type DetectFn = typeof detect;
/** The other build's detect(), where --against names one. */
const other: DetectFn | null = values.against
  ? ((await import(pathToFileURL(resolve(values.against, 'dist/src/mimo/detect.js')).href)) as { detect: DetectFn })
      .detect
  : null;

function timed(inp: DetectionInput, opts: DetectOptions, run: DetectFn = detect): { ms: number; r: DetectionResult } {
  gc?.();
  const c = process.cpuUsage();
  const r = run(inp, opts);
  const u = process.cpuUsage(c);
  return { ms: (u.user + u.system) / 1000, r };
}

console.log(`# ${cpuDescription()}, commit ${gitCommit()}, ${new Date().toISOString()}`);
console.log(
  `# ${nt}x${nr} ${mod}, Es/N0 ${snr} dB, ${vectors} vectors a call, median of ${reps} alternating calls, one thread`,
);
if (values.against) console.log(`# against: ${values.against}`);
console.log(
  `| detector | vectors / channel | TypeScript | WebAssembly | speed-up | agreement |${other ? ' other build | its speed-up | this / other |' : ''}`,
);
console.log(`|---|---|---|---|---|---|${other ? '---|---|---|' : ''}`);
for (const name of values.detectors.split(',')) {
  const [detector, arg] = name.split(':') as [Detector, string | undefined];
  const base: DetectOptions = {
    detector,
    modulation: mod,
    ...(arg && detector === 'nway' ? { passes: Number(arg) } : {}),
    ...(arg && detector === 'kbest' ? { k: Number(arg) } : {}),
  };
  const kernels = detectorEntry(detector)!.traits.wasmKernel === true;
  for (const vpc of values.vpc.split(',').map(Number)) {
    const inp = input(vpc);
    const ts: number[] = [],
      wa: number[] = [],
      ot: number[] = [];
    let a: DetectionResult | undefined, b: DetectionResult | undefined;
    for (let rep = -2; rep < reps; rep++) {
      const x = timed(inp, kernels ? { ...base, cpuKernel: 'typescript' } : base);
      if (rep >= 0) ts.push(x.ms);
      a = x.r;
      if (!kernels) continue;
      const y = timed(inp, { ...base, cpuKernel: 'wasm' });
      if (rep >= 0) wa.push(y.ms);
      b = y.r;
      if (!other) continue;
      const z = timed(inp, { ...base, cpuKernel: 'wasm' }, other);
      if (rep >= 0) ot.push(z.ms);
      for (let i = 0; i < a.symbols.length; i++)
        if (a.symbols[i] !== z.r.symbols[i]) throw new Error(`${name}: the other build's symbol ${i} differs`);
    }
    const rate = (ms: number) => `${((vectors / ms) * 1e3).toFixed(0)} /s`;
    let agree = '-';
    if (b) {
      let sym = 0,
        llr = 0;
      for (let i = 0; i < a!.symbols.length; i++) if (a!.symbols[i] !== b.symbols[i]) sym++;
      if (a!.llr && b.llr)
        for (let i = 0; i < a!.llr.length; i++) llr = Math.max(llr, Math.abs(a!.llr[i]! - b.llr[i]!));
      agree = `${sym} symbols differ, max LLR difference ${llr}`;
    }
    const mt = median(ts);
    const mw = wa.length ? median(wa) : NaN;
    const vs = ot.length
      ? ` ${rate(median(ot))} | ${median(ts.map((t, i) => t / ot[i]!)).toFixed(2)}x | ${median(ot.map((t, i) => t / wa[i]!)).toFixed(2)}x |`
      : other
        ? ' - | - | - |'
        : '';
    console.log(
      `| ${name} | ${vpc} | ${rate(mt)} | ${wa.length ? rate(mw) : 'no kernel'} | ${wa.length ? `${(mt / mw).toFixed(2)}x (pairs ${median(ts.map((t, i) => t / wa[i]!)).toFixed(2)}x)` : '-'} | ${agree} |${vs}`,
    );
  }
}
