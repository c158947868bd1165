/**
 * `lattice-mimo bench receiver`: the slot receiver on the device (src/receiver/cuda.ts), one launch
 * of --slots slots (cells' slots of one configuration) already on the device: CUDA events around
 * --reps launches after a warm-up, device time a slot, and the cells one GPU serves within a slot's
 * duration; the first launch's decoded transport blocks are checked against those sent. The slots
 * are made on the CPU (transmitSlot, the TDL-C response, noise at --snr dB Es/N0), distinct.
 * --cpu also times the CPU reference receiver on one slot. With --out, the table goes into
 * bench/RESULTS.md (section `bench-receiver`) with device, date and commit.
 */
import {
  channelEntry,
  channelResponse,
  checkChannel,
  slotDuration,
  subcarrierFrequencies,
  symbolTimes,
} from '../../src/channels/index.js';
import { Philox } from '../../src/core/rng.js';
import { requireCuda } from '../../src/gpu/context.js';
import { CudaEvent, Stream, timeOnStream } from '../../src/gpu/stream.js';
import { DeviceBuffer, PinnedBuffer } from '../../src/gpu/memory.js';
import {
  RECEIVER_STAGES,
  type ReceiverStage,
  receivedGrid,
  receiveSlotsCpu,
  resolveReceiver,
  slotReceiverCudaPlan,
  type SlotReceiverOptions,
  transmitSlot,
} from '../../src/receiver/index.js';
import { BenchArgs } from '../args.js';
import { gitCommit, median, writeResultsSection } from '../report.js';
import { MODULATIONS, type Modulation } from '../../src/mimo/index.js';

const USAGE =
  'usage: lattice-mimo bench receiver [--layers 4] [--nr 4] [--mod 64qam] [--prbs 273] [--scs 30000] [--rate 0.6] [--base-graph 1|2] [--detector nway|ep|mmse|...] [--passes 4] [--k 8] [--csi lmmse|ls] [--iterations 10] [--snr 22] [--speed 8.33] [--slots 8] [--reps 20] [--cpu] [--out FILE]';

export async function run(argv: string[]): Promise<number> {
  const a = BenchArgs.parse(
    'bench receiver',
    USAGE,
    [
      'layers',
      'nr',
      'mod',
      'prbs',
      'scs',
      'rate',
      'base-graph',
      'detector',
      'passes',
      'k',
      'csi',
      'iterations',
      'snr',
      'speed',
      'slots',
      'reps',
      'out',
    ],
    argv,
    ['cpu'],
  );
  const layers = a.int('layers', 1, 4, 4),
    nr = a.int('nr', 1, 16, 4),
    prbs = a.int('prbs', 1, 273, 273),
    scs = a.number('scs', 15e3, 120e3, 30e3),
    iterations = a.int('iterations', 1, 100, 10),
    snr = a.number('snr', -10, 60, 22),
    speed = a.number('speed', 0, 500, 8.33),
    slots = a.int('slots', 1, 256, 8),
    reps = a.int('reps', 1, 1000, 20);
  const modulation = a.choices('mod', MODULATIONS, ['64qam'])[0] as Modulation;
  const detectorName = a.text('detector', 'nway');
  const detector: Record<string, unknown> = { detector: detectorName };
  if (detectorName === 'nway') detector.passes = a.int('passes', 1, 64, 4);
  if (detectorName === 'kbest') detector.k = a.int('k', 1, 1024, 8);
  const csi = a.choices('csi', ['lmmse', 'ls'] as const, ['lmmse'])[0]!;
  const n0 = 10 ** (-snr / 10);
  const options: SlotReceiverOptions = {
    layers,
    nr,
    scs,
    prbs,
    modulation,
    rate: a.number('rate', 0.01, 0.95, 0.6),
    ...(a.text('base-graph', '') ? { baseGraph: a.int('base-graph', 1, 2, 1) as 1 | 2 } : {}),
    csi,
    channel: 'tdl-c',
    channelOptions: { delaySpread: 300e-9, speed },
    n0,
    detector: detector as never,
    decoder: { maxIterations: iterations, earlyStop: false },
    engine: 'cuda',
  };
  const r = resolveReceiver(options, 'bench receiver');
  // the slots: distinct transport blocks and channel drops
  const shape = { nt: layers, nr };
  const params = checkChannel('tdl-c', { delaySpread: 300e-9, speed }, shape, 'bench receiver').params;
  const gen = channelEntry('tdl-c')!.cpu(shape, params as never);
  const grid = { scs, prbs };
  const points = { times: symbolTimes(grid, 0, 1), freqs: subcarrierFrequencies(grid) };
  const rng = new Philox(20261207, 1);
  const sent: Uint8Array[] = [];
  const grids: Float32Array[] = [];
  const t0 = performance.now();
  for (let s = 0; s < slots; s++) {
    const tb = new Uint8Array(r.A);
    for (let i = 0; i < tb.length; i++) tb[i] = rng.uniform() < 0.5 ? 1 : 0;
    const H = channelResponse(
      gen,
      shape,
      { seed: 99, stream0: s, streamStep: 1, perStream: 1, first: 0, count: 1 },
      points,
    );
    sent.push(tb);
    grids.push(Float32Array.from(receivedGrid(r, transmitSlot(r, tb, s), H, n0, rng)));
  }
  const makeMs = performance.now() - t0;
  const ctx = requireCuda();
  const plan = await slotReceiverCudaPlan(ctx, r, slots);
  const stream = Stream.create(ctx);
  const per = grids[0]!.length;
  const host = PinnedBuffer.alloc(ctx, slots * per * 4);
  const lines: string[] = [];
  try {
    const f = host.f32(0, slots * per);
    grids.forEach((g, s) => {
      f.set(g, s * per);
    });
    const input = DeviceBuffer.alloc(ctx, slots * per * 4);
    input.uploadAsync(host, stream);
    const launch = { grid: input.ptr, slots, slot0: 0 };
    plan.enqueue(stream, launch);
    const first = await plan.results(stream, launch);
    const tbOk = first.filter((x) => x.tbCrcOk).length;
    const equal = first.filter((x, s) => x.tbCrcOk && x.tb.every((b, i) => b === sent[s]![i])).length;
    const blocksOk = first.reduce((n, x) => n + x.blockCrcOk.filter(Boolean).length, 0);
    const t = timeOnStream(ctx, stream, () => plan.enqueue(stream, launch), reps, 2);
    // the stages: an event before each (the plan's mark callback) and one at the end, median of reps
    const stageUs = new Map<ReceiverStage, number[]>();
    for (let rep = 0; rep < reps; rep++) {
      const marks: Array<[ReceiverStage, CudaEvent]> = [];
      plan.enqueue(stream, launch, (stage) => {
        const e = CudaEvent.create(ctx);
        e.record(stream);
        marks.push([stage, e]);
      });
      const end = CudaEvent.create(ctx);
      end.record(stream);
      end.synchronize();
      marks.forEach(([stage, e], i) => {
        const next = i + 1 < marks.length ? marks[i + 1]![1] : end;
        stageUs.set(stage, [...(stageUs.get(stage) ?? []), (next.elapsedSince(e) * 1e3) / slots]);
      });
      for (const [, e] of marks) e.destroy();
      end.destroy();
    }
    const stages = RECEIVER_STAGES.map((st) => `${st} ${median(stageUs.get(st) ?? [0]).toFixed(1)}`).join(', ');
    input.free();
    const slotUs = (t.medianMs * 1e3) / slots;
    const slotMs = slotDuration(grid) * 1e3;
    const bits = r.A * slots;
    const label = `${layers}x${nr} ${modulation}, ${prbs} PRBs at ${scs / 1e3} kHz, NR BG${r.code.nr!.bg} at rate ${r.options.rate} (C = ${r.C} blocks of K' = ${r.code.k}, E = ${r.E}, rate ${(r.code.k / r.E).toFixed(3)}, A = ${r.A} bits a slot), ${detectorName}${detector.passes ? ` N = ${detector.passes}` : ''}${detector.k ? ` K = ${detector.k}` : ''}, ${csi.toUpperCase()} CSI, ${iterations} decoder iterations (no early stop), TDL-C 300 ns ${speed} m/s at ${snr} dB`;
    lines.push(
      `- ${label}: ${slots} slots a launch, ${t.medianMs.toFixed(3)} ms median of ${reps} launches (min ${t.minMs.toFixed(3)}): **${slotUs.toFixed(1)} us of device time a slot**; ${Math.floor((slotMs * 1e3) / slotUs)} such cells within the ${slotMs} ms slot; ${((bits / t.medianMs) * 1e-6).toFixed(2)} Gbps of transport-block bits`,
      `- stages, us of device time a slot (median of ${reps}): ${stages}`,
      `- checked: ${tbOk}/${slots} transport blocks pass their CRC, ${equal} equal the sent bits; ${blocksOk}/${slots * r.C} code blocks pass CRC24B (slots made on the CPU in ${(makeMs / 1e3).toFixed(1)} s)`,
    );
    if (a.flag('cpu')) {
      const c0 = performance.now();
      const cpu = receiveSlotsCpu(r, [{ grid: grids[0]!, slot: 0 }]);
      const cpuMs = performance.now() - c0;
      const same = cpu[0]!.tbCrcOk === first[0]!.tbCrcOk && cpu[0]!.tb.every((b, i) => b === first[0]!.tb[i]);
      lines.push(
        `- CPU reference receiver (one thread of this host), one slot: ${(cpuMs / 1e3).toFixed(2)} s; its decoded bits ${same ? 'equal' : 'DIFFER FROM'} the device's`,
      );
    }
  } finally {
    host.free();
    stream.destroy();
    plan.free();
  }
  const section = [
    `## Slot receiver on the device, ${new Date().toISOString().slice(0, 10)}`,
    '',
    `- Device: ${ctx.props.name}; commit ${gitCommit()}; command: \`lattice-mimo bench receiver ${argv.join(' ')}\``,
    ...lines,
  ].join('\n');
  process.stdout.write(`${section}\n`);
  const out = a.text('out', '');
  if (out) writeResultsSection(out, 'bench-receiver', section);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = await run(process.argv.slice(2));
