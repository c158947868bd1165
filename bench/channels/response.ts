/**
 * The channel models' response on one 273-PRB slot at 30 kHz (3276 subcarriers x 14 symbols, the
 * OFDM link's chunk): the CPU generator on one core (ms a slot, median of --reps), and the CUDA
 * generator where a device is and the model has one (--drops drops in one call, timed with events
 * after a warm-up: us a slot, and the float64 + float32 output's bytes over that time against the
 * H100 SXM's ~3.35 TB/s HBM floor). Prints a markdown table.
 *
 *   node dist/bench/channels/response.js [--models tdl-c,cdl-c] [--mimo 4x4] [--speed 8.33] [--drops 8] [--reps 5]
 */
import {
  CHANNEL_MODELS,
  type ChannelSpan,
  channelEntry,
  subcarrierFrequencies,
  symbolTimes,
} from '../../src/channels/index.js';
import { cudaAvailable, DeviceBuffer, requireCuda, Stream, timeOnStream } from '../../src/gpu/index.js';
import { parseMimo } from '../../src/cli/mimo-values.js';
import { BenchArgs } from '../args.js';

const USAGE =
  'usage: node dist/bench/channels/response.js [--models LIST] [--mimo NTxNR] [--speed M_PER_S] [--drops N] [--reps N]';
const args = BenchArgs.parse('response', USAGE, ['models', 'mimo', 'speed', 'drops', 'reps']);
const models = args
  .text('models', CHANNEL_MODELS.filter((m) => m.startsWith('tdl-') || m.startsWith('cdl-')).join(','))
  .split(',');
for (const m of models) if (!channelEntry(m)) args.fail(`unknown model '${m}' (${CHANNEL_MODELS.join(', ')})`);
const { nt, nr } = parseMimo(args.text('mimo', '4x4'));
const speed = args.number('speed', 0, 1000, 8.33);
const drops = args.number('drops', 1, 64, 8, true);
const reps = args.number('reps', 1, 100, 5, true);

const grid = { scs: 30e3, prbs: 273 };
const at = { times: symbolTimes(grid, 0, 1), freqs: subcarrierFrequencies(grid) };
const span = (first: number, count: number): ChannelSpan => ({
  seed: 1,
  stream0: 0,
  streamStep: 1,
  perStream: 1 << 20,
  first,
  count,
});
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cuda = cudaAvailable();
const slotBytes = at.times.length * at.freqs.length * nr * nt * 2 * (8 + 4);

console.log(
  `${nt}x${nr}, ${speed} m/s, 273 PRBs at 30 kHz; GPU: ${cuda.ok ? cuda.device.name : `none (${cuda.reason})`}`,
);
console.log('| model | CPU slot (ms, 1 core) | GPU slot (us) | GPU output bandwidth (GB/s) |');
console.log('|---|---|---|---|');
for (const model of models) {
  const entry = channelEntry(model)!;
  const params = { speed };
  const g = entry.cpu({ nt, nr }, params);
  g.response?.(span(0, 1), at);
  const ms: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    if (g.response) g.response(span(r + 1, 1), at);
    else g.draw(span(r + 1, 1));
    ms.push(performance.now() - t0);
  }
  let gpu = '-',
    bw = '-';
  if (cuda.ok && entry.cuda) {
    const ctx = requireCuda();
    const stream = Stream.create(ctx);
    const plan = (await entry.cuda()).plan(ctx, { nt, nr }, params);
    const n = drops * at.times.length * at.freqs.length * 2 * nr * nt;
    const H64 = DeviceBuffer.alloc(ctx, n * 8),
      H32 = DeviceBuffer.alloc(ctx, n * 4);
    const t = timeOnStream(
      ctx,
      stream,
      () => plan.enqueueResponse!(stream, span(0, drops), at, { H64: H64.ptr, H32: H32.ptr }),
      reps,
      2,
    );
    const perSlotUs = (t.medianMs * 1000) / drops;
    gpu = perSlotUs.toFixed(1);
    bw = (slotBytes / (perSlotUs * 1e3)).toFixed(0);
    H64.free();
    H32.free();
    plan.free?.();
    stream.destroy();
  }
  console.log(`| ${model} | ${median(ms).toFixed(1)} | ${gpu} | ${bw} |`);
}
