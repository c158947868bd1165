/**
 * PSD on the GPU, data on the GPU: the plan's kernels (psd_prep, then the search) between CUDA
 * events after a warm-up (gpu-timing.ts), median of reps; vectors/s and Gbps of detected bits
 * (vectors x nt x bits per symbol / time). Prints:
 *  - the mappings side by side (warp with 1 .. 8 vectors a block, the paper's block a vector) on
 *    4x4 16-QAM and QPSK at 20 dB, 14 vectors a channel;
 *  - the issue's targets (4x4 16-QAM >= 10 Gbps, 4x4 QPSK >= 20 Gbps at 20 dB) with the default mapping;
 *  - the PSD paper's Table 2 configurations (2x2 and 4x4, QPSK and 16-QAM, 20 dB, Mbps) beside its
 *    GTX 690 figures, 14 and 1200 (the paper's) vectors a channel;
 *  - a 5G NR 100 MHz slot (45,864 vectors, 14 a channel) of 4x4 16-QAM at 10 and 20 dB.
 * Each row: the QR and search kernels alone, nodes per vector, the bytes floor (H, y, status and
 * symbols over the device's copy bandwidth) and the agreement with the CPU engine's psd on the
 * first vectors (differences are float32 near-ties: their float64 metric gap is printed).
 *
 * Usage: node dist/bench/mimo/gpu-psd.js [--reps N] [--vectors N] [--quick] [--check N]
 *        [--sections mappings,sizes,targets,table2,slot]
 */
import { parseArgs } from 'node:util';
import { Philox } from '../../src/core/rng.js';
import { requireCuda } from '../../src/gpu/context.js';
import { addNoise, randomSymbols, snrToNoiseVar, transmit } from '../../src/mimo/channel.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { detect } from '../../src/mimo/detect.js';
import { constellation } from '../../src/mimo/modulation.js';
import { createPsdPlan, type PsdLaunchOptions } from '../../src/mimo/detectors/psd/cuda.js';
import type { DetectionInput, DetectOptions, Modulation } from '../../src/mimo/types.js';
import { timeDetectorKernels } from './gpu-timing.js';

const { values } = parseArgs({
  options: {
    reps: { type: 'string' },
    vectors: { type: 'string' },
    quick: { type: 'boolean' },
    check: { type: 'string' },
    sections: { type: 'string' },
  },
});
const reps = Number(values.reps ?? 20);
const big = Number(values.vectors ?? (values.quick ? 1 << 18 : 1 << 20));
const checkCount = Number(values.check ?? 20_000);

const ctx = requireCuda();
console.log(`device: ${ctx.props.name}, ${ctx.props.multiprocessors} SMs; date ${new Date().toISOString()}`);
/** HBM3 of the H100 SXM (3.35 TB/s nominal); the floor uses it for any device as a rough bound. */
const BANDWIDTH = 3.35e12;

function makeInput(
  nr: number,
  nt: number,
  mod: Modulation,
  snr: number,
  vectors: number,
  vpc: number,
  seed: number,
): DetectionInput {
  const rng = new Philox(seed, 7);
  const channels = Math.ceil(vectors / vpc);
  const H = rayleighChannels(rng, channels, nt, nr);
  const { symbols } = randomSymbols(rng, channels * vpc * nt, mod);
  const noiseVar = snrToNoiseVar(snr, 'esn0', 1);
  const y = addNoise(rng, transmit(H, symbols, nt, nr, vpc), noiseVar);
  return {
    nr,
    nt,
    H: new Float32Array(H) as unknown as Float64Array,
    y: new Float32Array(y) as unknown as Float64Array,
    vectorsPerChannel: vpc,
    noiseVar,
  };
}

/** float64 ||y - H s||^2 of vector v. */
function metric(inp: DetectionInput, mod: Modulation, sym: ArrayLike<number>, v: number): number {
  const con = constellation(mod),
    { nr, nt } = inp,
    vpc = inp.vectorsPerChannel ?? 1,
    c = Math.floor(v / vpc);
  let d = 0;
  for (let i = 0; i < nr; i++) {
    let re = inp.y[2 * (v * nr + i)]!,
      im = inp.y[2 * (v * nr + i) + 1]!;
    for (let j = 0; j < nt; j++) {
      const hr = inp.H[2 * (c * nr * nt + i + j * nr)]!,
        hi = inp.H[2 * (c * nr * nt + i + j * nr) + 1]!;
      const sr = con.points[2 * sym[j]!]!,
        si = con.points[2 * sym[j]! + 1]!;
      re -= hr * sr - hi * si;
      im -= hr * si + hi * sr;
    }
    d += re * re + im * im;
  }
  return d;
}

interface Row {
  what: string;
  ms: number;
  qrMs: number;
  detMs: number;
  vps: number;
  gbps: number;
  nodes: number;
  floorMs: number;
  check: string;
}

async function measure(
  what: string,
  nr: number,
  nt: number,
  mod: Modulation,
  snr: number,
  vectors: number,
  vpc: number,
  psd: DetectOptions['psd'],
  check: number,
  launch?: PsdLaunchOptions,
): Promise<Row> {
  const inp = makeInput(nr, nt, mod, snr, vectors, vpc, 1234 + vectors + nt * 7 + snr);
  const opts: DetectOptions = { detector: 'psd', modulation: mod, ...(psd ? { psd } : {}) };
  const t = await timeDetectorKernels(
    inp,
    opts,
    reps,
    launch ? (ctx, setup) => createPsdPlan(ctx, setup, launch) : undefined,
  );
  const V = Math.ceil(vectors / vpc) * vpc;
  const bps = constellation(mod).bitsPerSymbol;
  let nodes = 0;
  for (let v = 0; v < V; v++) nodes += t.status[2 * v + 1]!;
  const bytes = V * (8 * nr + 16 + 4 * nt) + (V / vpc) * 8 * nr * nt;
  let checkNote = '';
  if (check > 0) {
    const k = Math.min(V, Math.floor(check / vpc) * vpc || vpc);
    const sub: DetectionInput = {
      ...inp,
      H: Float64Array.from(inp.H.subarray(0, (k / vpc) * 2 * nr * nt)),
      y: Float64Array.from(inp.y.subarray(0, k * 2 * nr)),
    };
    const cpu = detect(sub, opts);
    let diff = 0,
      gap = 0;
    for (let v = 0; v < k; v++) {
      let same = true;
      for (let j = 0; j < nt; j++) if (cpu.symbols[v * nt + j] !== t.symbols[v * nt + j]) same = false;
      if (same) continue;
      diff++;
      const a = metric(sub, mod, cpu.symbols.subarray(v * nt, v * nt + nt), v),
        b = metric(sub, mod, t.symbols.subarray(v * nt, v * nt + nt), v);
      gap = Math.max(gap, (b - a) / Math.max(a, 1e-30));
    }
    checkNote = `${diff}/${k} differ from CPU psd${diff ? ` (max rel. metric gap ${gap.toExponential(1)})` : ''}`;
  }
  return {
    what,
    ms: t.medianMs,
    qrMs: t.stagesMs.qr ?? NaN,
    detMs: t.stagesMs.detect ?? NaN,
    vps: V / (t.medianMs / 1e3),
    gbps: (V * nt * bps) / (t.medianMs / 1e3) / 1e9,
    nodes: nodes / V,
    floorMs: (bytes / BANDWIDTH) * 1e3,
    check: checkNote,
  };
}

function print(title: string, rows: Row[], extra?: (r: Row) => string): void {
  console.log(`\n## ${title}`);
  console.log(
    '| case | total ms | qr ms | search ms | Mvectors/s | Gbps | nodes/vector | bytes floor ms | check |' +
      (extra ? ' paper |' : ''),
  );
  console.log(`|---|---|---|---|---|---|---|---|---|${extra ? '---|' : ''}`);
  for (const r of rows) {
    console.log(
      `| ${r.what} | ${r.ms.toFixed(4)} | ${r.qrMs.toFixed(4)} | ${r.detMs.toFixed(4)} | ${(r.vps / 1e6).toFixed(1)} | ${r.gbps.toFixed(2)} | ${r.nodes.toFixed(0)} | ${r.floorMs.toFixed(4)} | ${r.check} |${extra ? ` ${extra(r)} |` : ''}`,
    );
  }
}

/** The mappings side by side on 4x4 at 20 dB: lanes a vector and warps a block of the warp mapping, and the paper's block mapping. */
async function mappings(): Promise<void> {
  const rows: Row[] = [];
  const sweep = [
    [1, 2],
    [1, 4],
    [2, 2],
    [2, 4],
    [4, 2],
    [4, 4],
    [4, 8],
    [8, 2],
    [8, 4],
    [16, 4],
    [32, 4],
  ] as const;
  for (const [mod, label] of [
    ['16qam', '4x4 16-QAM'],
    ['qpsk', '4x4 QPSK'],
  ] as const) {
    for (const [lanes, warps] of sweep) {
      rows.push(
        await measure(
          `${label} warp mapping, ${lanes} lanes a vector, ${warps} warps a block`,
          4,
          4,
          mod,
          20,
          big,
          14,
          { gpuMapping: 'warp' },
          0,
          { lanes, warps },
        ),
      );
    }
    rows.push(
      await measure(
        `${label} warp mapping, default lanes and warps`,
        4,
        4,
        mod,
        20,
        big,
        14,
        { gpuMapping: 'warp' },
        checkCount,
      ),
    );
    rows.push(
      await measure(`${label} block mapping (paper)`, 4, 4, mod, 20, big >> 2, 14, { gpuMapping: 'block' }, checkCount),
    );
  }
  print('Mappings, 20 dB Es/N0, 14 vectors a channel', rows);
}

/** Lanes a vector on other sizes (2x2, 8x8, 64-QAM) at 20 dB. */
async function sizes(): Promise<void> {
  const rows: Row[] = [];
  for (const [n, mod] of [
    [2, 'qpsk'],
    [2, '16qam'],
    [2, '64qam'],
    [8, 'qpsk'],
    [8, '16qam'],
    [4, '64qam'],
  ] as const) {
    const count = n === 8 || (n === 4 && mod === '64qam') ? big >> 3 : big;
    for (const lanes of [1, 2, 4, 8, 32] as const) {
      rows.push(
        await measure(
          `${n}x${n} ${mod} warp mapping, ${lanes} lanes a vector`,
          n,
          n,
          mod,
          20,
          count,
          14,
          { gpuMapping: 'warp' },
          0,
          { lanes, warps: 2 },
        ),
      );
    }
    rows.push(
      await measure(
        `${n}x${n} ${mod} warp mapping, default lanes`,
        n,
        n,
        mod,
        20,
        count,
        14,
        { gpuMapping: 'warp' },
        0,
      ),
    );
  }
  print('Other sizes, lanes a vector, 20 dB', rows);
}

/** The issue's targets with the default mapping. */
async function targets(): Promise<void> {
  const rows: Row[] = [];
  for (const vpc of [14, 1200]) {
    rows.push(
      await measure(`4x4 16-QAM 20 dB, ${vpc} a channel (target 10 Gbps)`, 4, 4, '16qam', 20, big, vpc, undefined, 0),
    );
    rows.push(
      await measure(`4x4 QPSK 20 dB, ${vpc} a channel (target 20 Gbps)`, 4, 4, 'qpsk', 20, big, vpc, undefined, 0),
    );
  }
  print('Issue 15 targets (default mapping)', rows);
}

/** The paper's Table 2 configurations (and its figures: GTX 690, Mbps at 20 dB). */
async function table2(): Promise<void> {
  const paper: Record<string, string> = {
    '4x4 16qam': '105 Mbps',
    '4x4 qpsk': '146 Mbps',
    '2x2 16qam': '-',
    '2x2 qpsk': '-',
  };
  const rows: Row[] = [];
  for (const n of [2, 4]) {
    for (const mod of ['qpsk', '16qam'] as const) {
      for (const vpc of [14, 1200])
        rows.push(
          await measure(
            `${n}x${n} ${mod} 20 dB, ${vpc} a channel`,
            n,
            n,
            mod,
            20,
            big,
            vpc,
            undefined,
            vpc === 14 ? checkCount : 0,
          ),
        );
    }
  }
  print(
    'PSD paper Table 2 configurations (Mbps = Gbps x 1000)',
    rows,
    (r) => paper[r.what.split(' ').slice(0, 2).join(' ')] ?? '-',
  );
}

/** A 5G NR 100 MHz slot of 4x4 16-QAM: the default, other lane counts and the paper's block mapping. */
async function slot(): Promise<void> {
  const rows: Row[] = [];
  for (const snr of [10, 20]) {
    rows.push(
      await measure(
        `5G NR slot 4x4 16-QAM ${snr} dB (45,864 vectors, 14 a channel; budget 0.5 ms)`,
        4,
        4,
        '16qam',
        snr,
        45_864,
        14,
        undefined,
        checkCount,
      ),
    );
    for (const lanes of [4, 16, 32] as const) {
      rows.push(
        await measure(`the same, ${lanes} lanes a vector`, 4, 4, '16qam', snr, 45_864, 14, { gpuMapping: 'warp' }, 0, {
          lanes,
          warps: 2,
        }),
      );
    }
    rows.push(
      await measure('the same, block mapping (paper)', 4, 4, '16qam', snr, 45_864, 14, { gpuMapping: 'block' }, 0),
    );
  }
  print('5G NR 100 MHz slot', rows);
}

const SECTIONS: Record<string, () => Promise<void>> = { mappings, sizes, targets, table2, slot };
for (const name of (values.sections ?? Object.keys(SECTIONS).join(',')).split(',')) {
  const f = SECTIONS[name];
  if (!f) throw new Error(`unknown section ${name} (expected ${Object.keys(SECTIONS).join(', ')})`);
  await f();
}
