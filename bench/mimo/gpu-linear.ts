/**
 * zf, mmse and sic on the GPU: throughput with the data on the device (the plan's two kernels,
 * preprocessing per channel and detection per vector, timed with events after a warm-up, median of
 * the repetitions), in vectors/s and Gbps of detected bits, beside the memory floor (the bytes the
 * kernels must move over the measured device-copy bandwidth); then, with --check N, the decisions
 * of N fresh vectors per configuration (2x2, 4x4, 8x8; QPSK, 16-QAM, 64-QAM; 5, 15, 30 dB) against
 * the CPU engine (test/mimo/gpu-linear-check.ts), counting the accepted near-ties.
 *
 * Usage: node dist/bench/mimo/gpu-linear.js [--small: a few small checked cases, for compute-sanitizer]
 *   [--channels 32768] [--vpc 14] [--reps 20] [--check 100000] [--check-seconds 110]
 */
import { parseArgs } from 'node:util';
import { requireCuda } from '../../src/gpu/context.js';
import { Stream, timeOnStream } from '../../src/gpu/stream.js';
import { recordFloats } from '../../src/mimo/detectors/zf/cuda-linear.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { Modulation } from '../../src/mimo/types.js';
import { measureCeilings } from '../gpu/ceilings.js';
import { gitCommit } from '../report.js';
import { checkLinear, deviceCase, makeLinearCase, type LinearKind } from '../../test/mimo/gpu-linear-check.js';

const { values } = parseArgs({
  options: {
    channels: { type: 'string', default: '32768' },
    vpc: { type: 'string', default: '14' },
    reps: { type: 'string', default: '20' },
    check: { type: 'string', default: '100000' },
    'check-seconds': { type: 'string', default: '110' },
    small: { type: 'boolean', default: false },
  },
});
const channels = Number(values.channels),
  vpc = Number(values.vpc),
  reps = Number(values.reps);
const checkVectors = Number(values.check),
  checkSeconds = Number(values['check-seconds']);

const ctx = requireCuda();
if (values.small) {
  // a few small cases of every kernel build shape (odd and even nr, nr < nt), checked: a run for compute-sanitizer
  const stream = Stream.create(ctx);
  for (const kind of ['zf', 'mmse', 'sic'] as const) {
    for (const [nt, nr, mod] of [
      [4, 4, '16qam'],
      [3, 5, 'qpsk'],
      [9, 12, '64qam'],
      [2, 1, 'bpsk'],
      [16, 16, '16qam'],
    ] as const) {
      if (kind === 'zf' && nr < nt) continue;
      const c = makeLinearCase(nt * 100 + nr, kind, nt, nr, mod, 15, 37, 5, { mixedNoise: 0.1, preFlagged: 0.05 });
      const d = deviceCase(ctx, c);
      d.run(stream);
      stream.synchronize();
      const r = checkLinear(c, d.read());
      d.free();
      console.log(
        `small ${kind} ${nt}x${nr} ${mod}: near-ties ${r.nearTies}, flagged ${r.flagged}, unexplained ${r.bad.length} ${r.bad.slice(0, 2).join('; ')}`,
      );
    }
  }
  stream.destroy();
  process.exit(0);
}
const ceil = measureCeilings(ctx, { reps: 5 });
console.log(`device: ${ctx.props.name}, commit ${gitCommit()}, ${new Date().toISOString()}`);
console.log(`device copy ceiling: ${(ceil.deviceBytesPerS / 1e12).toFixed(2)} TB/s (read + write)`);

/** Fewest bytes a vector costs: its y, N0, status word read, symbols; its channel's H, and the record written and read once, shared by vpc vectors. */
function floorBytesPerVector(kind: LinearKind, nt: number, nr: number, perChannel: number): number {
  return 8 * nr + 4 + 4 + 4 * nt + (8 * nr * nt + 2 * 4 * recordFloats(kind, nt, nr)) / perChannel;
}

const stream = Stream.create(ctx);
const rows: string[] = [];
const configs: Array<[number, number, Modulation, number, number]> = [
  [4, 4, '16qam', channels, vpc],
  [8, 8, '16qam', channels, vpc],
  [4, 4, '16qam', Math.ceil(45_864 / vpc), vpc],
  [8, 8, '16qam', Math.ceil(45_864 / vpc), vpc],
  [4, 4, '16qam', channels * vpc, 1],
  [4, 4, 'qpsk', channels, vpc],
  [4, 4, '64qam', channels, vpc],
  [16, 16, '16qam', channels / 4, vpc],
];
console.log(
  '\nkind  size   mod     vpc  vectors    ms       Mvectors/s  Gbps     floor ms  x floor  prep ms  detect ms',
);
for (const kind of ['zf', 'mmse', 'sic'] as const) {
  for (const [nt, nr, mod, ch, perCh] of configs) {
    const c = makeLinearCase(nt * 1000 + ch, kind, nt, nr, mod, 20, ch, perCh);
    const d = deviceCase(ctx, c);
    const t = timeOnStream(ctx, stream, () => d.run(stream), reps, 3);
    // each kernel alone (the detection kernel on the records the runs above left)
    const tp = timeOnStream(ctx, stream, () => d.run(stream, 'prep'), reps, 3);
    const td = timeOnStream(ctx, stream, () => d.run(stream, 'detect'), reps, 3);
    d.free();
    const vectors = ch * perCh;
    const bits = vectors * nt * constellation(mod).bitsPerSymbol;
    const floorMs = ((vectors * floorBytesPerVector(kind, nt, nr, perCh)) / ceil.deviceBytesPerS) * 1e3;
    const row = `${kind.padEnd(5)} ${`${nt}x${nr}`.padEnd(6)} ${mod.padEnd(7)} ${String(perCh).padEnd(4)} ${String(vectors).padEnd(10)} ${t.medianMs.toFixed(4).padEnd(8)} ${(vectors / t.medianMs / 1e3).toFixed(1).padEnd(11)} ${(bits / t.medianMs / 1e6).toFixed(1).padEnd(8)} ${floorMs.toFixed(4).padEnd(9)} ${(t.medianMs / floorMs).toFixed(2).padEnd(8)} ${tp.medianMs.toFixed(4).padEnd(8)} ${td.medianMs.toFixed(4)}`;
    rows.push(row);
    console.log(row);
  }
}

if (checkVectors > 0) {
  console.log(`\ncheck: ${checkVectors} vectors per configuration against the CPU engine (at most ${checkSeconds} s)`);
  const t0 = performance.now();
  let configsDone = 0,
    bad = 0;
  const ties: Record<string, number> = {},
    flagged: Record<string, number> = {};
  outer: for (const kind of ['zf', 'mmse', 'sic'] as const) {
    for (const n of [2, 4, 8]) {
      for (const mod of ['qpsk', '16qam', '64qam'] as const) {
        for (const snr of [5, 15, 30]) {
          if ((performance.now() - t0) / 1e3 > checkSeconds) break outer;
          const c = makeLinearCase(Date.now() % 2 ** 30, kind, n, n, mod, snr, Math.ceil(checkVectors / 14), 14);
          const d = deviceCase(ctx, c);
          d.run(stream);
          stream.synchronize();
          const out = d.read();
          d.free();
          const r = checkLinear(c, out);
          configsDone++;
          bad += r.bad.length;
          ties[kind] = (ties[kind] ?? 0) + r.nearTies + r.orderTies;
          flagged[kind] = (flagged[kind] ?? 0) + r.flagged;
          if (r.bad.length > 0 || r.nearTies + r.orderTies > 0 || r.flagged > 0) {
            console.log(
              `  ${kind} ${n}x${n} ${mod} ${snr} dB: ${r.vectors} vectors, near-ties ${r.nearTies} (worst ${r.worstTie.toFixed(3)} of its bound), order ties ${r.orderTies}, flagged ${r.flagged} (${r.brokenChannels} channels), unexplained ${r.bad.length}${r.bad.length ? `: ${r.bad.slice(0, 3).join('; ')}` : ''}`,
            );
          }
        }
      }
    }
  }
  console.log(
    `check: ${configsDone} configurations in ${((performance.now() - t0) / 1e3).toFixed(0)} s; near-ties per detector ${JSON.stringify(ties)}; flagged (CPU redo) ${JSON.stringify(flagged)}; unexplained ${bad}`,
  );
}
console.log(`\n${rows.join('\n')}`);
stream.destroy();
