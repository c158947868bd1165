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
import { BenchArgs } from '../args.js';

interface Args {
  codes: string[];
  ebn0: number;
  frames: number;
  iterations: number;
  early: boolean;
  algorithms: DecoderAlgorithm[];
  seed: number;
}

const USAGE =
  'node dist/bench/coding/ldpc-throughput.js [--codes wimax:2304:1/2,nr:bg1:8448:1/3] [--ebn0 2] [--frames 200] [--iterations 10] [--early 0|1] [--algorithms nms,oms] [--seed S]';

function parseCommandLine(argv: string[]): Args {
  const cl = BenchArgs.parse(
    'ldpc-throughput',
    USAGE,
    ['codes', 'ebn0', 'frames', 'iterations', 'early', 'algorithms', 'seed'],
    argv,
  );
  return {
    codes: cl.text('codes', 'wimax:2304:1/2,nr:bg1:8448:1/3,nr:bg2:3840:1/5').split(','),
    ebn0: cl.number('ebn0', -5, 20, 2),
    frames: cl.int('frames', 1, 1_000_000, 200),
    iterations: cl.int('iterations', 1, 1000, 10),
    early: cl.int('early', 0, 1, 0) === 1,
    algorithms: cl.choices('algorithms', LDPC_DECODER_ALGORITHMS, LDPC_DECODER_ALGORITHMS),
    seed: cl.int('seed', 0, 2 ** 47, Date.now() % 2 ** 31),
  };
}

function timed<T>(f: () => T): { value: T; wall: number; cpu: number } {
  const t0 = performance.now(),
    c0 = process.cpuUsage();
  const value = f();
  const c = process.cpuUsage(c0);
  return { value, wall: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6 };
}

function main(): number {
  const a = parseCommandLine(process.argv.slice(2));
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
        for (let i = 0; i < code.k; i++)
          if (r.value.bits[f * code.k + i] !== info[f * code.k + i]) {
            bad++;
            break;
          }
      }
      rows.push(`| ${code.name} | ${alg} | ${bad} / ${a.frames} | ${mb(r.wall)} | ${mb(r.cpu)} |`);
      process.stderr.write(`${code.name} ${alg}: ${mb(r.wall)} Mbps\n`);
    }
  });
  console.log(
    `CPU LDPC throughput, one thread of ${cpus()[0]?.model ?? 'unknown CPU'}; ${a.frames} frames at Eb/N0 ${a.ebn0} dB, ${a.iterations} iterations, early stop ${a.early ? 'on' : 'off'}; seed ${a.seed}\n`,
  );
  console.log('| code | operation | frame errors | Mbps of information bits (wall) | Mbps per CPU second |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  return 0;
}

process.exitCode = main();
