/**
 * CPU LDPC throughput per code and decoder, one thread: encode and decode rates in Mbps of
 * information bits (the figure GPU decoders are quoted in), for any code spec.
 *
 *   node dist/bench/coding/ldpc-throughput.js [--codes wimax:2304:1/2,nr:bg1:8448:1/3] [--ebn0 2]
 *        [--frames 200] [--iterations 10] [--early 0|1] [--algorithms nms,oms,spa,flooding-spa] [--seed S]
 *
 * Frames: uniform bits, the code's encoder (rate matching included for NR), BPSK over AWGN at Eb/N0,
 * LLR = 2 y / sigma^2. Times are wall clock and process CPU time of decodeBatch / encodeBatch on the
 * whole batch after a warm-up. Prints a markdown table.
 */
import { cpus } from 'node:os';
import { Philox } from '../../src/core/rng.js';
import { ldpcCode } from '../../src/coding/code.js';
import { LDPC_DECODER_ALGORITHMS, type DecoderAlgorithm } from '../../src/coding/types.js';
import { awgnFrames } from './ldpc-itpp.js';

interface Args { codes: string[]; ebn0: number; frames: number; iterations: number; early: boolean; algorithms: DecoderAlgorithm[]; seed: number }

function usage(msg: string): never {
  process.stderr.write(`ldpc-throughput: ${msg}\nusage: node dist/bench/coding/ldpc-throughput.js [--codes wimax:2304:1/2,nr:bg1:8448:1/3] [--ebn0 2] [--frames 200] [--iterations 10] [--early 0|1] [--algorithms nms,oms] [--seed S]\n`);
  process.exit(2);
}

function parseArgs(argv: string[]): Args {
  const a: Args = { codes: ['wimax:2304:1/2', 'nr:bg1:8448:1/3', 'nr:bg2:3840:1/5'], ebn0: 2, frames: 200, iterations: 10, early: false, algorithms: [...LDPC_DECODER_ALGORITHMS], seed: Date.now() % 2 ** 31 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i]!, val = argv[i + 1];
    if (val === undefined) usage(`${key} needs a value`);
    const int = (lo: number, hi: number) => {
      const v = Number(val);
      if (!Number.isInteger(v) || v < lo || v > hi) usage(`${key} must be an integer in [${lo}, ${hi}], got ${val}`);
      return v;
    };
    switch (key) {
      case '--codes': a.codes = val.split(','); break;
      case '--ebn0': a.ebn0 = Number(val); if (!Number.isFinite(a.ebn0)) usage(`--ebn0 must be a number, got ${val}`); break;
      case '--frames': a.frames = int(1, 1_000_000); break;
      case '--iterations': a.iterations = int(1, 1000); break;
      case '--early': a.early = int(0, 1) === 1; break;
      case '--algorithms':
        a.algorithms = val.split(',') as DecoderAlgorithm[];
        if (a.algorithms.some((x) => !LDPC_DECODER_ALGORITHMS.includes(x))) usage(`--algorithms takes ${LDPC_DECODER_ALGORITHMS.join(', ')}`);
        break;
      case '--seed': a.seed = int(0, 2 ** 47); break;
      default: usage(`unknown option ${key}`);
    }
  }
  return a;
}

function timed<T>(f: () => T): { value: T; wall: number; cpu: number } {
  const t0 = performance.now(), c0 = process.cpuUsage();
  const value = f();
  const c = process.cpuUsage(c0);
  return { value, wall: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6 };
}

function main(): number {
  const a = parseArgs(process.argv.slice(2));
  const rows: string[] = [];
  a.codes.forEach((spec, ci) => {
    const code = ldpcCode(spec);
    const { llr, info } = awgnFrames(code, a.frames, a.ebn0, new Philox(a.seed, ci));
    code.encodeBatch(info.subarray(0, code.k), 1);
    const enc = timed(() => code.encodeBatch(info, a.frames));
    const mb = (s: number) => ((a.frames * code.k) / s / 1e6).toFixed(3);
    rows.push(`| ${code.name} (k ${code.k}, n ${code.n}) | encode | | ${mb(enc.wall)} | ${mb(enc.cpu)} |`);
    for (const alg of a.algorithms) {
      const dec = code.decoder({ algorithm: alg, maxIterations: a.iterations, earlyStop: a.early });
      const warm = Math.min(a.frames, 10);
      dec.decodeBatch(llr.subarray(0, warm * code.n), warm);
      const r = timed(() => dec.decodeBatch(llr, a.frames));
      let bad = 0;
      for (let f = 0; f < a.frames; f++) {
        for (let i = 0; i < code.k; i++) if (r.value.bits[f * code.k + i] !== info[f * code.k + i]) { bad++; break; }
      }
      rows.push(`| ${code.name} | ${alg} | ${bad} / ${a.frames} | ${mb(r.wall)} | ${mb(r.cpu)} |`);
      process.stderr.write(`${code.name} ${alg}: ${mb(r.wall)} Mbps\n`);
    }
  });
  console.log(`CPU LDPC throughput, one thread of ${cpus()[0]?.model ?? 'unknown CPU'}; ${a.frames} frames at Eb/N0 ${a.ebn0} dB, ${a.iterations} iterations, early stop ${a.early ? 'on' : 'off'}; seed ${a.seed}\n`);
  console.log('| code | operation | frame errors | Mbps of information bits (wall) | Mbps per CPU second |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  return 0;
}

process.exitCode = main();
