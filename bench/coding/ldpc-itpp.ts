/**
 * Our CPU LDPC decoders against IT++'s LDPC_Code::bp_decode on the same code, the same LLRs and the
 * same iteration count: FER on AWGN with BPSK, and speed (Mbps of information bits, one thread).
 * Each min-sum algorithm runs in every arithmetic asked for (`--arithmetics float,int16,int8`: the
 * TypeScript reference and the WebAssembly SIMD kernels; the table names the kernel that ran). A
 * code not sent whole (NR) runs without IT++ (its rate matching is ours alone).
 *
 *   node dist/bench/coding/ldpc-itpp.js [--code wimax:2304:1/2] [--ebn0 1,1.5,2] [--frames 500]
 *        [--iterations 10] [--early 0|1] [--algorithms nms,spa,flooding-spa]
 *        [--arithmetics float,int16,int8] [--reps 3] [--seed S]
 *
 * Frames: uniform information bits, our systematic encoder, BPSK (0 -> +1), AWGN at Eb/N0 (rate k/n),
 * LLR = 2 y / sigma^2. Ours: decodeBatch on the whole batch after three warm-up calls. IT++: the
 * time inside its bp_decode calls, as the runner measures it. The two alternate, rep by rep, and
 * each speed is the median of its reps (the machine is shared); wall time, and process CPU time
 * (less sensitive to other load). Prints a markdown table; FER with its 95% interval.
 */
import { cpus } from 'node:os';
import { Philox } from '../../src/core/rng.js';
import { ldpcCode, type LdpcCode } from '../../src/coding/code.js';
import { LDPC_DECODER_ALGORITHMS, type DecoderAlgorithm, type DecoderOptions } from '../../src/coding/types.js';
import { MIN_SUM_ARITHMETICS, type MinSumArithmetic } from '../../src/coding/fixed-point-min-sum.js';
import { itppLdpcAvailability, itppLdpcDecode } from './itpp-ldpc.js';
import { BenchArgs } from '../args.js';

interface Args {
  code: string;
  ebn0: number[];
  frames: number;
  iterations: number;
  early: boolean;
  algorithms: DecoderAlgorithm[];
  arithmetics: MinSumArithmetic[];
  reps: number;
  seed: number;
}

const USAGE =
  'node dist/bench/coding/ldpc-itpp.js [--code wimax:2304:1/2] [--ebn0 1,1.5,2] [--frames 500] [--iterations 10] [--early 0|1] [--algorithms nms,spa] [--arithmetics float,int16,int8] [--reps 3] [--seed S]';

function parseCommandLine(argv: string[]): { a: Args; cl: BenchArgs } {
  const cl = BenchArgs.parse(
    'ldpc-itpp',
    USAGE,
    ['code', 'ebn0', 'frames', 'iterations', 'early', 'algorithms', 'arithmetics', 'reps', 'seed'],
    argv,
  );
  const a: Args = {
    code: cl.text('code', 'wimax:2304:1/2'),
    ebn0: cl.numbers('ebn0', -5, 20, [1, 1.5, 2]),
    frames: cl.int('frames', 1, 1_000_000, 500),
    iterations: cl.int('iterations', 1, 1000, 10),
    early: cl.int('early', 0, 1, 0) === 1,
    algorithms: cl.choices('algorithms', LDPC_DECODER_ALGORITHMS, ['nms', 'oms', 'spa', 'flooding-spa']),
    arithmetics: cl.choices('arithmetics', MIN_SUM_ARITHMETICS, ['float']),
    reps: cl.int('reps', 1, 100, 3),
    seed: cl.int('seed', 0, 2 ** 47, Date.now() % 2 ** 31),
  };
  return { a, cl };
}

/** frames of BPSK-over-AWGN channel LLRs for random codewords, and their information bits. */
export function awgnFrames(
  code: LdpcCode,
  frames: number,
  ebn0Db: number,
  rng: Philox,
): { llr: Float64Array; info: Uint8Array } {
  const sigma2 = 1 / (2 * code.rate * 10 ** (ebn0Db / 10));
  const sigma = Math.sqrt(sigma2);
  const info = new Uint8Array(frames * code.k);
  for (let i = 0; i < info.length; i++) info[i] = rng.nextUint32() & 1;
  const x = code.encodeBatch(info, frames);
  const llr = new Float64Array(frames * code.n);
  for (let i = 0; i < llr.length; i++) llr[i] = (2 * (1 - 2 * x[i]! + sigma * rng.normal())) / sigma2;
  return { llr, info };
}

/** 95% Wilson interval of errors / trials, as "p [lo, hi]". */
export function ferText(errors: number, trials: number): string {
  const z = 1.96,
    p = errors / trials;
  const den = 1 + (z * z) / trials;
  const mid = (p + (z * z) / (2 * trials)) / den;
  const half = (z * Math.sqrt((p * (1 - p)) / trials + (z * z) / (4 * trials * trials))) / den;
  return `${p.toExponential(2)} [${Math.max(0, mid - half).toExponential(1)}, ${(mid + half).toExponential(1)}]`;
}

/** The decoders a run compares: each algorithm, and each min-sum one in every arithmetic asked for. */
function decoderSettings(a: Args): { label: string; options: DecoderOptions }[] {
  const out: { label: string; options: DecoderOptions }[] = [];
  for (const algorithm of a.algorithms) {
    const minSum = algorithm === 'nms' || algorithm === 'oms';
    for (const arithmetic of minSum ? a.arithmetics : (['float'] as const))
      out.push({
        label: arithmetic === 'float' ? algorithm : `${algorithm} ${arithmetic}`,
        options: { algorithm, maxIterations: a.iterations, earlyStop: a.early, arithmetic },
      });
  }
  return out;
}

function main(): number {
  const { a } = parseCommandLine(process.argv.slice(2));
  const code = ldpcCode(a.code);
  const whole = code.n === code.H.n;
  const avail = itppLdpcAvailability();
  if (!avail.ok && whole) {
    process.stderr.write(`ldpc-itpp: ${avail.reason}\n`);
    return 1;
  }
  const settings = decoderSettings(a);
  const rows: string[] = [];
  a.ebn0.forEach((eb, p) => {
    const { llr, info } = awgnFrames(code, a.frames, eb, new Philox(a.seed, p));
    const ferOf = (bits: Uint8Array, stride: number): number => {
      let bad = 0;
      for (let f = 0; f < a.frames; f++) {
        for (let i = 0; i < code.k; i++)
          if (bits[f * stride + i] !== info[f * code.k + i]) {
            bad++;
            break;
          }
      }
      return bad;
    };
    const median = (xs: number[]) => [...xs].sort((p, q) => p - q)[xs.length >> 1]!;
    const decoders = settings.map((d) => code.decoder(d.options));
    // Three warm-up calls: WebAssembly kernels start in V8's baseline tier (Liftoff, about 4x slower)
    // and each function tiers up once it has run a while, the rarely called ones (a first pass a
    // group) later than the rest.
    const warm = Math.min(a.frames, 64);
    for (let w = 0; w < 3; w++) for (const dec of decoders) dec.decodeBatch(llr.subarray(0, warm * code.n), warm);
    const itppSec: number[] = [],
      ourSec: number[][] = settings.map(() => []);
    const itppCpu: number[] = [],
      ourCpu: number[][] = settings.map(() => []);
    let ref = null as ReturnType<typeof itppLdpcDecode> | null;
    const results: ReturnType<(typeof decoders)[number]['decodeBatch']>[] = [];
    for (let r = 0; r < a.reps; r++) {
      if (whole) {
        ref = itppLdpcDecode(code.H, llr, a.frames, { maxIterations: a.iterations, earlyStop: a.early });
        itppSec.push(ref.seconds);
        itppCpu.push(ref.cpuSeconds);
      }
      decoders.forEach((dec, d) => {
        const t0 = performance.now(),
          c0 = process.cpuUsage();
        results[d] = dec.decodeBatch(llr, a.frames);
        const c = process.cpuUsage(c0);
        ourSec[d]!.push((performance.now() - t0) / 1000);
        ourCpu[d]!.push((c.user + c.system) / 1e6);
      });
    }
    const itppMbps = whole ? (a.frames * code.k) / median(itppSec) / 1e6 : Number.NaN;
    const itppCpuMbps = whole ? (a.frames * code.k) / median(itppCpu) / 1e6 : Number.NaN;
    const ratio = (x: number) => (whole ? (x / itppMbps).toFixed(2) : '');
    const ratioCpu = (x: number) => (whole ? (x / itppCpuMbps).toFixed(2) : '');
    if (whole)
      rows.push(
        `| ${eb} | IT++ bp_decode (flooding SPA) | ${ferText(ferOf(ref!.bits, code.n), a.frames)} | ${(ref!.iterations.reduce((s, v) => s + v, 0) / a.frames).toFixed(2)} | ${itppMbps.toFixed(3)} | 1.00 | | ${itppCpuMbps.toFixed(3)} | 1.00 |`,
      );
    const floatMbps = new Map<string, number>();
    settings.forEach((setting, d) => {
      const res = results[d]!;
      const mbps = (a.frames * code.k) / median(ourSec[d]!) / 1e6;
      const cpuMbps = (a.frames * code.k) / median(ourCpu[d]!) / 1e6;
      const alg = setting.options.algorithm!;
      if (setting.options.arithmetic === 'float') floatMbps.set(alg, mbps);
      const vsFloat = floatMbps.has(alg) ? (mbps / floatMbps.get(alg)!).toFixed(1) : '';
      rows.push(
        `| ${eb} | ${setting.label} (${res.kernel ?? 'typescript'}) | ${ferText(ferOf(res.bits, code.k), a.frames)} | ${(res.iterations.reduce((q, v) => q + v, 0) / a.frames).toFixed(2)} | ${mbps.toFixed(3)} | ${ratio(mbps)} | ${vsFloat} | ${cpuMbps.toFixed(3)} | ${ratioCpu(cpuMbps)} |`,
      );
      process.stderr.write(
        `Eb/N0 ${eb} dB ${setting.label}: ${mbps.toFixed(3)} Mbps${whole ? ` (IT++ ${itppMbps.toFixed(3)})` : ''}\n`,
      );
    });
  });
  console.log(
    `${a.code}, ${a.frames} frames per point, ${a.iterations} iterations, early stop ${a.early ? 'on' : 'off'}, median of ${a.reps} alternating reps; one thread of ${cpus()[0]?.model ?? 'unknown CPU'}; seed ${a.seed}\n`,
  );
  console.log(
    '| Eb/N0 (dB) | decoder (kernel) | FER [95% interval] | mean iterations | Mbps (info bits, wall) | vs IT++ | vs its float | Mbps (per CPU second) | vs IT++ |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  return 0;
}

if (process.argv[1] && /ldpc-itpp\.js$/.test(process.argv[1])) process.exitCode = main();
