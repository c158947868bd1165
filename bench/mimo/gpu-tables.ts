/**
 * `lattice-mimo bench mimo --engine cuda`: the GPU detection papers' tables with our figures beside
 * theirs, each with its floor, the CPU engine on every core beside it, and the agreement of the
 * GPU's decisions with the CPU engine's on the same data.
 *
 *  - psd: the PSD paper's Table 2 configurations (2x2 and 4x4, QPSK and 16-QAM, 20 dB);
 *  - nway: the N-way paper's Tables I-III (8400 vectors, one channel each as in the paper: its QR
 *    kernel, its detection kernel, the total with QR and transfers; 2x2 and 4x4, 16- and 64-QAM,
 *    N = 1 to 4);
 *  - slot: a 5G NR 100 MHz slot (273 x 12 subcarriers x 14 symbols = 45,864 vectors, one channel per
 *    subcarrier) for nway 4x4 64-QAM N = 4 and psd 4x4 16-QAM, host to host; and 16 slots in one
 *    batch for nway (a large batch against its link floor);
 *  - detectors: every detector with a CUDA implementation, 4x4 16-QAM at 10 and 20 dB, 14 vectors a channel.
 *
 * kernel = data on the GPU (gpu-timing.ts); host to host = detectAsync() on pinned input and output
 * arrays (allocPinned), median of the calls made in 0.3 s (at least max(reps, 25), at most 2,000) after 4,000
 * warm-up calls (at most 2 s of them); link floor = bytes up / upload rate + bytes
 * down / download rate; kernel floor = bytes the kernels must move over the device's copy bandwidth
 * (operations are counted by the detectors' own bench scripts).
 */
import { availableParallelism } from 'node:os';
import { cpuDescription, gitCommit, writeResultsSection } from '../report.js';
import { measureCeilings, type DeviceCeilings } from '../gpu/ceilings.js';
import { Philox } from '../../src/core/rng.js';
import { requireCuda, type CudaContext } from '../../src/gpu/context.js';
import { allocPinned } from '../../src/gpu/host-memory.js';
import { describeCuda } from '../../src/gpu/index.js';
import { addNoise, randomSymbols, snrToNoiseVar, transmit } from '../../src/mimo/channel.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { detect } from '../../src/mimo/detect.js';
import { detectAsync } from '../../src/mimo/detect-async.js';
import { bitsPerSymbolOf } from '../../src/mimo/modulation.js';
import { cudaDetectors, DETECTOR_REGISTRY } from '../../src/mimo/registry.js';
import type { DetectionInput, DetectOptions, Detector, Modulation } from '../../src/mimo/types.js';
import { cpuAllCores } from './cpu-workers.js';
import { timeDetectorKernels } from './gpu-timing.js';

export interface GpuTableOptions {
  tables: readonly ('psd' | 'nway' | 'slot' | 'detectors')[];
  reps: number;
  seed: number;
  /** Skip the CPU engine column. */
  noCpu: boolean;
  out?: string;
}

interface Case {
  nt: number;
  nr: number;
  mod: Modulation;
  snrDb: number;
  channels: number;
  vpc: number;
  opts: DetectOptions;
}

/** A batch on the pinned host memory the GPU copies straight from. */
function makeInput(ctx: CudaContext, c: Case, seed: number): DetectionInput & { H: Float32Array; y: Float32Array } {
  const rng = new Philox(seed, c.channels * 31 + c.nt);
  const H64 = rayleighChannels(rng, c.channels, c.nt, c.nr);
  const vectors = c.channels * c.vpc;
  const { symbols } = randomSymbols(rng, vectors * c.nt, c.mod);
  const noiseVar = snrToNoiseVar(c.snrDb, 'esn0', bitsPerSymbolOf(c.mod));
  const y64 = addNoise(rng, transmit(H64, symbols, c.nt, c.nr, c.vpc), noiseVar);
  const H = allocPinned(ctx, Float32Array, H64.length),
    y = allocPinned(ctx, Float32Array, y64.length);
  H.set(H64);
  y.set(y64);
  return { nt: c.nt, nr: c.nr, H, y, vectorsPerChannel: c.vpc, noiseVar };
}

const fmtMs = (ms: number): string => (ms >= 1 ? `${ms.toFixed(3)} ms` : `${(ms * 1e3).toFixed(1)} us`);
/** Detected bits a second: Gbps from 1 Gbps up, else Mbps (the CPU engine's figures are Mbps). */
const rate = (bits: number, ms: number): string => {
  const r = bits / (ms / 1e3);
  return r >= 1e9 ? `${(r / 1e9).toFixed(r >= 1e10 ? 1 : 2)} Gbps` : `${(r / 1e6).toFixed(r >= 1e7 ? 1 : 2)} Mbps`;
};
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
};

/**
 * Untimed calls before the host path is timed, at most HOST_WARMUP_MS of them (a slot's call
 * reaches its steady state within about 1,600 calls, host-profile.ts --curve, as a receiver calling
 * it for every slot does within a second); then timed calls, at least HOST_REPS and for at least
 * HOST_TIMED_MS (at most HOST_TIMED_MAX), so that a disturbance of tens of milliseconds (another
 * tenant on the host link) cannot carry the median.
 */
const HOST_WARMUP = 4000,
  HOST_WARMUP_MS = 2000,
  HOST_REPS = 25,
  HOST_TIMED_MS = 300,
  HOST_TIMED_MAX = 2000;

interface Measured {
  vectors: number;
  bits: number;
  kernelMs: number;
  stagesMs: Record<string, number>;
  hostMs: number;
  /** Vectors of the timed call that the GPU engine redid on the CPU (float32-unsafe channels). */
  redone: number;
  linkFloorMs: number;
  kernelFloorMs: number;
  cpuMs: number | null;
  agree: string;
}

/** onBudget 'flag' for the searches that stop at the node budget (the option applies to no other detector). */
function flagBudget(opts: DetectOptions): { onBudget?: 'flag' } {
  return DETECTOR_REGISTRY[opts.detector].traits.nodeBudget === 'search' ? { onBudget: 'flag' } : {};
}

async function measure(ctx: CudaContext, ceil: DeviceCeilings, c: Case, o: GpuTableOptions): Promise<Measured> {
  const input = makeInput(ctx, c, o.seed);
  const vectors = c.channels * c.vpc,
    bps = bitsPerSymbolOf(c.mod);
  const soft = DETECTOR_REGISTRY[c.opts.detector].traits.soft && c.opts.soft !== 'none';
  const k = await timeDetectorKernels(input, c.opts, o.reps);
  const symbols = allocPinned(ctx, Int32Array, vectors * c.nt);
  const llr = soft ? allocPinned(ctx, Float32Array, vectors * c.nt * bps) : undefined;
  const opts: DetectOptions = { ...c.opts, engine: 'cuda', ...flagBudget(c.opts) };
  const host: number[] = [];
  // the host path is timed in steady state: JIT-compiled and its workspace grown (a call of a slot
  // is a few hundred microseconds, so a few cold calls would move a median of a few)
  const warm0 = performance.now();
  for (let r = 0; r < HOST_WARMUP && performance.now() - warm0 < HOST_WARMUP_MS; r++)
    await detectAsync(input, opts, { symbols, ...(llr ? { llr } : {}) });
  let gpu = null as Awaited<ReturnType<typeof detectAsync>> | null;
  const timed0 = performance.now();
  for (
    let r = 0;
    r < Math.max(o.reps, HOST_REPS) || (r < HOST_TIMED_MAX && performance.now() - timed0 < HOST_TIMED_MS);
    r++
  ) {
    const t = performance.now();
    gpu = await detectAsync(input, opts, { symbols, ...(llr ? { llr } : {}) });
    host.push(performance.now() - t);
  }
  const up = input.H.byteLength + input.y.byteLength;
  const down = vectors * c.nt * 4 + (soft ? vectors * c.nt * bps * 4 : 0) + vectors * 8;
  const linkFloorMs = (up / ceil.hostToDeviceBytesPerS + down / ceil.deviceToHostBytesPerS) * 1e3;
  const kernelFloorMs = ((up + down) / ceil.deviceBytesPerS) * 1e3;
  let cpuMs: number | null = null,
    agree = '';
  if (!o.noCpu) {
    const cpu = await cpuAllCores(input, { ...c.opts, ...flagBudget(c.opts) }, Math.min(3, o.reps));
    cpuMs = cpu.ms;
    let same = 0;
    for (let v = 0; v < vectors; v++) {
      let eq = true;
      for (let j = 0; j < c.nt; j++)
        if (cpu.symbols[v * c.nt + j] !== gpu!.symbols[v * c.nt + j]) {
          eq = false;
          break;
        }
      if (eq) same++;
    }
    agree = `${same}/${vectors}`;
  } else {
    // a sample against the CPU engine, so a wrong kernel cannot pass unnoticed
    const n = Math.min(vectors, 2000 - (2000 % c.vpc) || c.vpc);
    const sub = { ...input, H: input.H.slice(0, (n / c.vpc) * 2 * c.nr * c.nt), y: input.y.slice(0, n * 2 * c.nr) };
    const cpu = detect(sub, { ...c.opts, ...flagBudget(c.opts) });
    let same = 0;
    for (let v = 0; v < n; v++)
      if (cpu.symbols.subarray(v * c.nt, v * c.nt + c.nt).every((s, j) => s === gpu!.symbols[v * c.nt + j])) same++;
    agree = `${same}/${n} (sample)`;
  }
  return {
    vectors,
    bits: vectors * c.nt * bps,
    kernelMs: k.medianMs,
    stagesMs: k.stagesMs,
    hostMs: median(host),
    redone: gpu!.stats.redoneOnCpu ?? 0,
    linkFloorMs,
    kernelFloorMs,
    cpuMs,
    agree,
  };
}

const PSD_PAPER: Record<string, string> = { '4x4 16qam': '105 Mbps (GTX 690)', '4x4 qpsk': '146 Mbps (GTX 690)' };
const NWAY_PAPER = {
  qr: { '2x2': ['0.030 ms', '0.052 ms'], '4x4': ['0.137 ms', '0.257 ms', '0.399 ms', '0.501 ms'] } as Record<
    string,
    string[]
  >,
  detect: {
    '2x2 16qam': ['0.0768 ms', '0.159 ms'],
    '4x4 16qam': ['0.164 ms', '0.332 ms', '0.500 ms', '0.665 ms'],
    '2x2 64qam': ['0.524 ms', '1.040 ms'],
    '4x4 64qam': ['0.833 ms', '1.658 ms', '2.474 ms', '3.297 ms'],
  } as Record<string, string[]>,
  total: {
    '2x2 16qam': ['0.342 ms', '0.462 ms'],
    '4x4 16qam': ['0.739 ms', '1.048 ms', '1.349 ms', '1.629 ms'],
    '2x2 64qam': ['0.818 ms', '1.363 ms'],
    '4x4 64qam': ['1.457 ms', '2.415 ms', '3.390 ms', '4.30 ms'],
  } as Record<string, string[]>,
};

export async function runGpuTables(o: GpuTableOptions): Promise<number> {
  const ctx = requireCuda();
  const available = new Set(cudaDetectors());
  const progress = (s: string) => process.stderr.write(`[bench mimo --engine cuda] ${s}\n`);
  progress('measuring the device ceilings');
  const ceil = measureCeilings(ctx);
  const lines: string[] = [];
  const head = (await describeCuda()).map((l) => l.trim()).join('; ');
  lines.push(`- Device: ${head}; host ${cpuDescription()}.`);
  lines.push(
    `- Date: ${new Date().toISOString()}; commit ${gitCommit()}; command: \`lattice-mimo bench mimo --engine cuda --tables ${o.tables.join(',')} --reps ${o.reps} --seed ${o.seed}${o.noCpu ? ' --no-cpu' : ''}\``,
  );
  lines.push(
    `- Ceilings measured here: device memory ${(ceil.deviceBytesPerS / 1e9).toFixed(0)} GB/s; host link ${(ceil.hostToDeviceBytesPerS / 1e9).toFixed(1)} GB/s up, ${(ceil.deviceToHostBytesPerS / 1e9).toFixed(1)} GB/s down (pinned); float32 ${(ceil.fp32FmaFlopsPerS / 1e12).toFixed(1)} Tflop/s with FMA.`,
  );
  lines.push(
    `- kernel = data on the GPU, CUDA events, median of ${o.reps} after a warm-up; host to host = detectAsync() on pinned arrays, the median of calls made for ${HOST_TIMED_MS / 1000} s (at least ${Math.max(o.reps, HOST_REPS)}, at most ${HOST_TIMED_MAX}) after ${HOST_WARMUP} untimed (at most ${HOST_WARMUP_MS / 1000} s); CPU engine = detect() on ${availableParallelism()} worker threads; agree = vectors whose GPU symbols equal the CPU engine's.`,
  );
  const row = async (label: string, paper: string, c: Case): Promise<string> => {
    if (!available.has(c.opts.detector)) return `| ${label} | ${paper} | no CUDA ${c.opts.detector} yet | | | | | | |`;
    progress(label);
    try {
      const m = await measure(ctx, ceil, c, o);
      return `| ${label} | ${paper} | ${fmtMs(m.kernelMs)} = ${rate(m.bits, m.kernelMs)} | ${fmtMs(m.kernelFloorMs)} | ${fmtMs(m.hostMs)} = ${rate(m.bits, m.hostMs)}${m.redone ? ` (${m.redone} vectors redone on the CPU)` : ''} | ${fmtMs(m.linkFloorMs)} (${(m.hostMs / m.linkFloorMs).toFixed(2)}x) | ${m.cpuMs === null ? '--no-cpu' : `${fmtMs(m.cpuMs)} = ${rate(m.bits, m.cpuMs)}`} | ${m.agree} |`;
    } catch (e) {
      return `| ${label} | ${paper} | failed: ${(e as Error).message.slice(0, 160)} | | | | | |`;
    }
  };
  const header = [
    '| case | paper | kernel (data on GPU) | kernel bytes floor | host to host | link floor (host / floor) | CPU engine, all cores | agree |',
    '|---|---|---|---|---|---|---|---|',
  ];

  if (o.tables.includes('psd')) {
    lines.push(
      '',
      '### PSD (Jozsa et al.), Table 2 configurations, 20 dB, 14 vectors a channel, 8400 vectors',
      '',
      ...header,
    );
    for (const [nt, mod] of [
      [2, 'qpsk'],
      [2, '16qam'],
      [4, 'qpsk'],
      [4, '16qam'],
    ] as const) {
      lines.push(
        await row(`psd ${nt}x${nt} ${mod}`, PSD_PAPER[`${nt}x${nt} ${mod}`] ?? '-', {
          nt,
          nr: nt,
          mod,
          snrDb: 20,
          channels: 600,
          vpc: 14,
          opts: { detector: 'psd', modulation: mod },
        }),
      );
    }
  }
  if (o.tables.includes('nway')) {
    lines.push(
      '',
      '### N-way (Tables I-III): 8400 vectors, one channel each, QR per vector as in the paper, 20 dB',
      '',
    );
    lines.push(
      '| case | N | paper QR (Table I) | our QR stage | paper detection (Table II) | our detection stage | paper total (Table III) | our host to host | link floor | CPU engine, all cores | agree |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const [nt, mod] of [
      [2, '16qam'],
      [4, '16qam'],
      [2, '64qam'],
      [4, '64qam'],
    ] as const) {
      for (let N = 1; N <= nt; N++) {
        const key = `${nt}x${nt} ${mod}`;
        const c: Case = {
          nt,
          nr: nt,
          mod,
          snrDb: 20,
          channels: 8400,
          vpc: 1,
          opts: { detector: 'nway', modulation: mod, passes: N },
        };
        if (!available.has('nway')) {
          lines.push(`| ${key} | ${N} | ${NWAY_PAPER.qr[`${nt}x${nt}`]![N - 1]} | no CUDA nway yet | | | | | | | |`);
          continue;
        }
        progress(`nway ${key} N=${N}`);
        try {
          const m = await measure(ctx, ceil, c, o);
          const st = (name: string) => (m.stagesMs[name] !== undefined ? fmtMs(m.stagesMs[name]!) : '(no stage)');
          lines.push(
            `| ${key} | ${N} | ${NWAY_PAPER.qr[`${nt}x${nt}`]![N - 1]} | ${st('qr')} | ${NWAY_PAPER.detect[key]![N - 1]} | ${st('detect')} = ${m.stagesMs.detect ? rate(m.bits, m.stagesMs.detect) : ''} | ${NWAY_PAPER.total[key]![N - 1]} | ${fmtMs(m.hostMs)} | ${fmtMs(m.linkFloorMs)} | ${m.cpuMs === null ? '--no-cpu' : fmtMs(m.cpuMs)} | ${m.agree} |`,
          );
        } catch (e) {
          lines.push(`| ${key} | ${N} | | failed: ${(e as Error).message.slice(0, 160)} | | | | | | | |`);
        }
      }
    }
  }
  if (o.tables.includes('slot')) {
    lines.push(
      '',
      '### 5G NR 100 MHz slot: 273 x 12 subcarriers x 14 symbols = 45,864 vectors, one channel per subcarrier, 20 dB',
      '',
      ...header,
    );
    lines.push(
      await row('nway 4x4 64-QAM N = 4 (target: host to host <= 0.25 ms)', '8400 vectors in 4.30 ms (Table III)', {
        nt: 4,
        nr: 4,
        mod: '64qam',
        snrDb: 20,
        channels: 3276,
        vpc: 14,
        opts: { detector: 'nway', modulation: '64qam', passes: 4 },
      }),
    );
    lines.push(
      await row('psd 4x4 16-QAM', '-', {
        nt: 4,
        nr: 4,
        mod: '16qam',
        snrDb: 20,
        channels: 3276,
        vpc: 14,
        opts: { detector: 'psd', modulation: '16qam' },
      }),
    );
    // a large batch (target: host to host within 2x of the link floor)
    lines.push(
      await row('nway 4x4 64-QAM N = 4, 16 slots (733,824 vectors; target: within 2x of the link floor)', '-', {
        nt: 4,
        nr: 4,
        mod: '64qam',
        snrDb: 20,
        channels: 16 * 3276,
        vpc: 14,
        opts: { detector: 'nway', modulation: '64qam', passes: 4 },
      }),
    );
  }
  if (o.tables.includes('detectors')) {
    lines.push('', '### Every CUDA detector, 4x4 16-QAM, 8400 vectors, 14 a channel', '', ...header);
    for (const d of cudaDetectors() as Detector[])
      for (const snrDb of [10, 20]) {
        lines.push(
          await row(`${d} ${snrDb} dB`, '-', {
            nt: 4,
            nr: 4,
            mod: '16qam',
            snrDb,
            channels: 600,
            vpc: 14,
            opts: { detector: d, modulation: '16qam' },
          }),
        );
      }
  }
  const text = lines.join('\n');
  process.stdout.write(`${text}\n`);
  if (o.out) writeResultsSection(o.out, 'bench-mimo-cuda', `## GPU detection (bench mimo --engine cuda)\n\n${text}`);
  return 0;
}
