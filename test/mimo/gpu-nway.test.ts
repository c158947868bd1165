/**
 * The N-way and SSFE kernels (qr-batch.cu + nway-detect.cu) against the CPU engine's nway detector
 * (float64) on fresh Rayleigh channels, random symbols and noise at low, middle and high SNR:
 *  - decisions equal the CPU's, except vectors where the float64 search itself nearly ties (a
 *    rounding gamma within NEAR_TIE level units of a decision boundary, or the two best candidates'
 *    metrics within NEAR_TIE relative): those are counted, each checked to be such a tie, and few;
 *  - LLRs within LLR_TOL_ABS + LLR_TOL_REL * cond(R) * S / N0 of the CPU's, S the vector's metric
 *    scale (|y|^2 + |H~|_F^2 (Q-1)^2, what the float32 metrics round against) and cond(R) as below
 *    (float32 MGS loses that factor), outside near-tie vectors;
 *  - the status word's node count is the CPU's, a vector flagged on entry is left alone, a singular
 *    channel's vectors get RANK_DEFICIENT;
 *  - with one vector per channel, the z-record plan (the QR kernel forms z = Q^T y, the detector
 *    reads it) gives the Q-record plan's symbols, LLRs and status words bit for bit;
 *  - with a-priori LLRs (the NW_PRIOR build) the same against the CPU engine with the same priors
 *    (extrinsic LLRs, node counts with the levels that search all children; the near-tie margin
 *    also covers those levels' choices), and all-zero priors give the prior-free build bit for bit
 *    (emulated; on the GPU the two builds contract products into FMAs differently, so there the
 *    all-zero run is held to the CPU engine without priors).
 * Emulated (CUDA emulator, no GPU) on a few hundred vectors a configuration, and on the GPU (where
 * one answers) on 10^5 vectors a configuration, 2x2 / 4x4 / 8x8, BPSK to 256-QAM, N = 1 .. nt.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomInt } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Philox } from '../../src/core/rng.js';
import { InvalidArgumentError, RankDeficientError } from '../../src/core/errors.js';
import { detectAsync } from '../../src/mimo/detect-async.js';
import { constellation } from '../../src/mimo/modulation.js';
import type { Modulation } from '../../src/mimo/types.js';
import { detectorRealModel, type RealModel } from '../../src/mimo/soft/real-model.js';
import { detector as nwayCpu } from '../../src/mimo/detectors/nway/cpu.js';
import { LevelPriors, prepareSsfePass, rotatedStreams } from '../../src/mimo/detectors/ssfe/search.js';
import { applyQt } from '../../src/mimo/preprocess/qr.js';
import {
  NWAY_DETECT_URL,
  NwayPlan,
  nwayDefines,
  nwayLaunchShape,
  nwayQrMapping,
  nwayTuningOf,
  type NwayTuning,
} from '../../src/mimo/detectors/nway/cuda.js';
import {
  QR_BATCH_URL,
  QR_THREAD_BLOCK,
  QR_THREAD_URL,
  qrBatchDefines,
  qrBatchSharedBytes,
  qrGroupsPerBlock,
  qrRecordLayout,
  qrThreadDefines,
  qrThreadSharedBytes,
} from '../../src/mimo/gpu/preprocess/qr-batch.js';
import { MIMO_STATUS, STATUS_WORDS } from '../../src/mimo/gpu/status.js';
import { cudaAvailable, CudaContext } from '../../src/gpu/context.js';
import { DeviceBuffer } from '../../src/gpu/memory.js';
import { Stream } from '../../src/gpu/stream.js';
import { compileEmulated, emulatorUnavailable, runEmulated } from '../gpu/cuda-emulator.js';
import { emulatorShims, float32Channels, QR_CALL } from './nway-emulation.js';
import { nwayBuild } from '../../bench/kernels/traced.js';
import { qrStoreLoopBuild } from '../../bench/mimo/gpu-nway-builds.js';

const unavailable = emulatorUnavailable();
const skipEmu = unavailable ? `CUDA emulator unavailable: ${unavailable}` : false;
const cuda = cudaAvailable();
const skipGpu = cuda.ok ? false : `no CUDA device: ${cuda.reason}`;

/**
 * A float64 decision within NEAR_TIE float32 error estimates of its boundary may go either way in
 * float32; the estimate of a rounded level is 2^-24 x (|z_i| + sum_j |R_ij p_j|) / (2 R_ii) x cond(R)
 * (cond estimated by max R_ii / min R_ii, what MGS's float32 errors grow with), of the metric gap
 * between the two best candidates 2^-24 x S x cond(R).
 */
const NEAR_TIE = 64;
const EPS32 = 2 ** -24;
const LLR_TOL_ABS = 1e-4;
const LLR_TOL_REL = 2.5e-7;

interface NwayCase {
  nr: number;
  nt: number;
  mod: Modulation;
  passes: number;
  snrDb: number;
  channels: number;
  vpc: number;
  soft: boolean;
  clip: number;
}

interface Problem {
  c: NwayCase;
  m: RealModel;
  H: Float32Array;
  y: Float32Array;
  noise: Float32Array;
  /** Status words on entry (the engine's normalize kernel's flags). */
  statusIn: Int32Array;
}

function makeProblem(c: NwayCase, seed: number): Problem {
  const m = detectorRealModel('nway', constellation(c.mod), c.nt, c.nr);
  const rng = new Philox(seed);
  const H = float32Channels(rng, c.channels, c.nt, c.nr);
  const vectors = c.channels * c.vpc;
  const pts = constellation(c.mod).points;
  const y = new Float32Array(2 * vectors * c.nr),
    noise = new Float32Array(vectors);
  const n0 = 10 ** (-c.snrDb / 10);
  for (let v = 0; v < vectors; v++) {
    noise[v] = n0 * (0.5 + rng.uniform());
    const hb = 2 * Math.floor(v / c.vpc) * c.nr * c.nt;
    const s = Array.from({ length: c.nt }, () => rng.int(pts.length / 2));
    const sd = Math.sqrt(noise[v]! / 2);
    for (let i = 0; i < c.nr; i++) {
      let re = rng.normal() * sd,
        im = rng.normal() * sd;
      for (let j = 0; j < c.nt; j++) {
        const hr = H[hb + 2 * (i + j * c.nr)]!,
          hi = H[hb + 2 * (i + j * c.nr) + 1]!;
        const sr = pts[2 * s[j]!]!,
          si = pts[2 * s[j]! + 1]!;
        re += hr * sr - hi * si;
        im += hr * si + hi * sr;
      }
      y[2 * (v * c.nr + i)] = re;
      y[2 * (v * c.nr + i) + 1] = im;
    }
  }
  return { c, m, H, y, noise, statusIn: new Int32Array(STATUS_WORDS * vectors) };
}

/** The kernels' outputs (status null: through detectAsync, which keeps no status words). */
interface Outputs {
  symbols: Int32Array;
  llr: Float32Array;
  status: Int32Array | null;
}

/** Emulated program (QR_CALL: qr_batch or qr_thread): [channels, vpc, qrThreads, qrShared, nwThreads, nwShared, soft, hasPrior] int32, clip, scale float32, then H, y, noise, status, and with hasPrior the priors (vectors x NT x BPS). */
const NWAY_MAIN =
  QR_CALL +
  String.raw`
int main() {
  int h[8]; float fp[2];
  if (fread(h, 4, 8, stdin) != 8 || fread(fp, 4, 2, stdin) != 2) return 1;
  const int channels = h[0], vpc = h[1], qt = h[2], qs = h[3], nt = h[4], ns = h[5], soft = h[6], hasPrior = h[7];
  const int vectors = channels * vpc;
  std::vector<float> H((size_t)channels * 2 * QR_NR * QR_NT), y((size_t)vectors * 2 * NW_NR), noise(vectors);
  std::vector<int> status((size_t)vectors * 2);
  if (fread(H.data(), 4, H.size(), stdin) != H.size() || fread(y.data(), 4, y.size(), stdin) != y.size()) return 1;
  if (fread(noise.data(), 4, noise.size(), stdin) != noise.size() || fread(status.data(), 4, status.size(), stdin) != status.size()) return 1;
  std::vector<float> prior(hasPrior ? (size_t)vectors * NW_NBITS : 0);
  if (fread(prior.data(), 4, prior.size(), stdin) != prior.size()) return 1;
  std::vector<float> rec((size_t)channels * QR_PASSES * QR_RECORD, -777.f);
  std::vector<int> sym((size_t)vectors * NW_NT, -1);
  std::vector<float> llr((size_t)vectors * NW_NBITS, -999.f);
  const int problems = channels * QR_PASSES;
  if (emu_launch((problems + QR_GROUPS - 1) / QR_GROUPS, dim3{(unsigned)qt, 1, 1}, qs, [&] { QR_CALL(H.data(), QR_Z ? y.data() : nullptr, rec.data(), problems, fp[1]); })) return 2;
  if (emu_launch((vectors + NW_VPB - 1) / NW_VPB, dim3{(unsigned)nt, 1, 1}, ns, [&] { nway_detect(y.data(), noise.data(), rec.data(), sym.data(), soft ? llr.data() : nullptr, status.data(), vectors, vpc, fp[0], nullptr, 0LL, hasPrior ? prior.data() : nullptr); })) return 2;
  fwrite(sym.data(), 4, sym.size(), stdout);
  fwrite(llr.data(), 4, llr.size(), stdout);
  fwrite(status.data(), 4, status.size(), stdout);
  return 0;
}
`;

/** A measurement build's source as a file the emulator can include (named by its content). */
function sourceFile(source: string): string {
  const dir = join(tmpdir(), 'lattice-mimo-emu');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `nway-${createHash('sha256').update(source).digest('hex').slice(0, 16)}.cu`);
  writeFileSync(path, source);
  return path;
}

/**
 * Both kernels in the emulator as NwayPlan runs them (zOfVector: the z-record plan, vpc 1; the QR
 * mapping as NwayPlan picks it; prior: the chunk's a-priori LLRs, run by the NW_PRIOR build).
 */
function emulate(pb: Problem, tuning: NwayTuning = {}, zOfVector = false, prior: Float32Array | null = null): Outputs {
  const { c, m } = pb;
  const thread = (tuning.qrBuild ? 'column' : (tuning.qrMapping ?? nwayQrMapping(m, zOfVector))) === 'thread';
  const layout = qrRecordLayout(c.nr, c.nt, m.dimsPerStream, zOfVector);
  const qrShape = { nr: c.nr, nt: c.nt, dimsPerStream: m.dimsPerStream, passes: c.passes, sorted: false, zOfVector };
  const groups = thread ? (tuning.qrThread?.threads ?? QR_THREAD_BLOCK) : qrGroupsPerBlock(m.nd, c.passes);
  const qrThreads = thread ? groups : groups * m.nd;
  const qrShared = thread
    ? qrThreadSharedBytes(layout.floats, qrThreads, tuning.qrThread?.chunk)
    : qrBatchSharedBytes(m.rows, m.nd, groups, layout.qRows);
  const shape = nwayLaunchShape(m, c.passes, c.soft, tuning, prior !== null);
  const defs = {
    ...(thread ? qrThreadDefines(qrShape, qrThreads, tuning.qrThread?.chunk) : qrBatchDefines(qrShape, groups)),
    ...tuning.qrBuild?.defines,
    ...nwayDefines(m, c.passes, c.soft, tuning, zOfVector, prior !== null),
  };
  const defines = [...Object.entries(defs).map(([k, v]) => `-D${k}=${v}`), `-DQR_THREAD_KERNEL=${thread ? 1 : 0}`];
  const qrFile = tuning.qrBuild
    ? sourceFile(tuning.qrBuild.source)
    : fileURLToPath(thread ? QR_THREAD_URL : QR_BATCH_URL);
  const { exe, error } = compileEmulated(
    NWAY_MAIN,
    [emulatorShims(), qrFile, tuning.build ? sourceFile(tuning.build.source) : fileURLToPath(NWAY_DETECT_URL)],
    defines,
  );
  if (error) throw new Error(error);
  const head = new Int32Array([
    c.channels,
    c.vpc,
    qrThreads,
    qrShared,
    shape.threadsPerVector * shape.vectorsPerBlock,
    shape.sharedBytes,
    c.soft ? 1 : 0,
    prior ? 1 : 0,
  ]);
  const parts = [
    head,
    new Float32Array([c.clip, m.scale]),
    pb.H,
    pb.y,
    pb.noise,
    pb.statusIn,
    ...(prior ? [prior] : []),
  ];
  const out = runEmulated(exe, Buffer.concat(parts.map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength))));
  const vectors = c.channels * c.vpc;
  const ab = out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength);
  const symbols = new Int32Array(ab, 0, vectors * c.nt);
  const llr = new Float32Array(ab, 4 * vectors * c.nt, vectors * c.nt * m.bitsPerSymbol);
  const status = new Int32Array(ab, 4 * vectors * c.nt * (1 + m.bitsPerSymbol), STATUS_WORDS * vectors);
  return { symbols, llr, status };
}

function onGpu(pb: Problem, zOfVector = false, tuning: NwayTuning = {}, prior: Float32Array | null = null): Outputs {
  const { c, m } = pb;
  const ctx = CudaContext.get(0);
  ctx.makeCurrent();
  const stream = Stream.create(ctx);
  const plan = new NwayPlan(ctx, m, c.passes, c.soft, c.clip, tuning, zOfVector);
  const vectors = c.channels * c.vpc;
  const nbits = c.nt * m.bitsPerSymbol;
  const bufs = {
    H: DeviceBuffer.alloc(ctx, pb.H.byteLength),
    y: DeviceBuffer.alloc(ctx, pb.y.byteLength),
    noise: DeviceBuffer.alloc(ctx, pb.noise.byteLength),
    symbols: DeviceBuffer.alloc(ctx, 4 * vectors * c.nt),
    llr: DeviceBuffer.alloc(ctx, 4 * vectors * nbits),
    status: DeviceBuffer.alloc(ctx, 4 * STATUS_WORDS * vectors),
    scratch: DeviceBuffer.alloc(ctx, c.channels * plan.scratchBytesPerChannel[0]!),
    prior: DeviceBuffer.alloc(ctx, Math.max(4, prior?.byteLength ?? 0)),
  };
  if (prior) bufs.prior.upload(prior);
  bufs.H.upload(pb.H);
  bufs.y.upload(pb.y);
  bufs.noise.upload(pb.noise);
  bufs.status.upload(pb.statusIn);
  bufs.symbols.fill(0xff);
  bufs.llr.fill(0xff);
  bufs.scratch.fill(0xff);
  plan.enqueue(stream, {
    channels: c.channels,
    vectorsPerChannel: c.vpc,
    H: bufs.H.ptr,
    y: bufs.y.ptr,
    noise: bufs.noise.ptr,
    symbols: bufs.symbols.ptr,
    llr: c.soft ? bufs.llr.ptr : 0n,
    status: bufs.status.ptr,
    scratch: [bufs.scratch.ptr],
    ...(prior ? { prior: bufs.prior.ptr } : {}),
  });
  stream.synchronize();
  const out = {
    symbols: new Int32Array(vectors * c.nt),
    llr: new Float32Array(vectors * nbits),
    status: new Int32Array(STATUS_WORDS * vectors),
  };
  bufs.symbols.download(out.symbols);
  bufs.llr.download(out.llr);
  bufs.status.download(out.status);
  for (const b of Object.values(bufs)) b.free();
  stream.destroy();
  return out;
}

interface Reference {
  symbols: Int32Array;
  llr: Float64Array;
  nodes: Int32Array;
  margin: Float64Array;
  scale: Float64Array;
  cond: Float64Array;
}

/**
 * The CPU engine's nway (float64) on the same float32 inputs (with `prior`: those a-priori LLRs),
 * and per vector its float64 tie margin: the least distance, over every pass, path and rounded
 * level, of (gamma + Q - 1) / 2 + 1/2 to a boundary that changes the clipped level; at a level the
 * priors make search all children, the gap between its two least distance-plus-cost values; and the
 * relative gap between the two least metrics. With priors the metric scale S includes N0 sum |L_a|.
 */
function reference(pb: Problem, prior: Float32Array | null = null): Reference {
  const { c, m } = pb;
  const vectors = c.channels * c.vpc,
    nbits = c.nt * m.bitsPerSymbol;
  const inst = nwayCpu.create({
    nr: c.nr,
    nt: c.nt,
    modulation: c.mod,
    constellation: constellation(c.mod),
    opts: { detector: 'nway', modulation: c.mod, passes: c.passes, llrClip: c.clip },
    soft: true,
    maxNodes: 1 << 24,
    ...(prior ? { priorLlr: Float64Array.from(prior) } : {}),
  });
  const prior64 = prior ? Float64Array.from(prior) : null,
    levelPriors = new LevelPriors(m);
  const H = Float64Array.from(pb.H),
    y = Float64Array.from(pb.y);
  const out = {
    symbols: new Int32Array(vectors * c.nt),
    llr: new Float64Array(vectors * nbits),
    unproven: new Uint8Array(vectors),
  };
  const nodes = new Int32Array(vectors),
    margin = new Float64Array(vectors),
    scale = new Float64Array(vectors),
    condOf = new Float64Array(vectors);
  const realH = new Float64Array(m.rows * m.nd),
    perm = new Int32Array(m.nd),
    z = new Float64Array(m.nd),
    p = new Float64Array(m.nd);
  const half = m.q - 1;
  for (let ch = 0; ch < c.channels; ch++) {
    const hOff = 2 * ch * c.nr * c.nt;
    const prep = inst.prepare(H, hOff, pb.noise[ch * c.vpc]!);
    const passes = Array.from({ length: c.passes }, (_, r) =>
      prepareSsfePass(m, H, hOff, rotatedStreams(m.nt, r), realH, perm),
    );
    let hNorm = 0;
    for (let i = 2 * ch * c.nr * c.nt; i < 2 * (ch + 1) * c.nr * c.nt; i++) hNorm += H[i]! ** 2;
    const conds = passes.map((ps) => {
      let lo = Infinity,
        hi = 0;
      for (let i = 0; i < m.nd; i++) {
        const d = Math.abs(ps.R[i + i * m.nd]!);
        lo = Math.min(lo, d);
        hi = Math.max(hi, d);
      }
      return hi / lo;
    });
    for (let v = ch * c.vpc; v < (ch + 1) * c.vpc; v++) {
      nodes[v] = inst.detect(prep, y, 2 * v * c.nr, pb.noise[v]!, out, v);
      let yNorm = 0;
      for (let i = 0; i < 2 * c.nr; i++) yNorm += y[2 * v * c.nr + i]! ** 2;
      scale[v] = yNorm + hNorm * m.scale * m.scale * half * half;
      const withPrior = prior64 !== null && levelPriors.set(prior64, v * nbits, pb.noise[v]!);
      if (prior64) for (let b = 0; b < nbits; b++) scale[v] += pb.noise[v]! * Math.abs(prior64[v * nbits + b]!);
      const yAbs = Math.sqrt(yNorm);
      // the float64 search again, watching its decisions
      let tie = Infinity;
      const metrics: number[] = [];
      let worstCond = 0;
      for (const [pi, pass] of passes.entries()) {
        const cond = conds[pi]!;
        worstCond = Math.max(worstCond, cond);
        applyQt(pass.Q, m.rows, m.nd, y, 2 * v * c.nr, z);
        const R = pass.R,
          nd = m.nd;
        // the a-priori cost of level l in column i, and whether column i's dimension has priors
        const cost = (i: number, l: number): number => (withPrior ? levelPriors.cost[pass.dimOrder[i]! * m.q + l]! : 0);
        const active = (i: number): boolean => withPrior && levelPriors.active[pass.dimOrder[i]!] === 1;
        const paths = nd >= 2 ? m.q * m.q : m.q;
        for (let k = 0; k < paths; k++) {
          if (nd === 1) {
            const e = z[0]! - R[0]! * (2 * k - half);
            metrics.push(e * e + cost(0, k));
            continue;
          }
          const i0 = Math.floor(k / m.q),
            i1 = k % m.q;
          p[nd - 1] = 2 * i0 - half;
          p[nd - 2] = 2 * i1 - half;
          let e = z[nd - 1]! - R[nd * nd - 1]! * p[nd - 1]!;
          let d = e * e;
          e = z[nd - 2]! - R[nd - 2 + (nd - 1) * nd]! * p[nd - 1]! - R[nd - 2 + (nd - 2) * nd]! * p[nd - 2]!;
          d += e * e;
          d += cost(nd - 1, i0) + cost(nd - 2, i1);
          for (let i = nd - 3; i >= 0; i--) {
            let b = z[i]!,
              terms = Math.abs(z[i]!) + yAbs;
            for (let j = i + 1; j < nd; j++) {
              b -= R[i + j * nd]! * p[j]!;
              terms += Math.abs(R[i + j * nd]! * p[j]!);
            }
            if (active(i)) {
              // every child: the least distance plus cost (the first of equals), and its gap to the next
              let li = 0,
                t1 = Infinity,
                t2 = Infinity,
                e1 = 0,
                e2 = 0;
              for (let l = 0; l < m.q; l++) {
                const el = b - R[i + i * nd]! * (2 * l - half);
                const t = el * el + cost(i, l);
                if (t < t1) {
                  t2 = t1;
                  e2 = e1;
                  t1 = t;
                  e1 = el;
                  li = l;
                } else if (t < t2) {
                  t2 = t;
                  e2 = el;
                }
              }
              tie = Math.min(tie, (t2 - t1) / (EPS32 * cond * (2 * (Math.abs(e1) + Math.abs(e2)) * terms + t1 + t2)));
              p[i] = 2 * li - half;
              d += t1;
              continue;
            }
            const x = (b * pass.invDiag[i]! + half) * 0.5 + 0.5;
            // boundaries that change the clipped level: the integers 1 .. Q-1
            const nearest = Math.min(Math.max(Math.round(x), 1), m.q - 1);
            tie = Math.min(tie, Math.abs(x - nearest) / (EPS32 * terms * Math.abs(pass.invDiag[i]!) * 0.5 * cond));
            let li = Math.floor(x);
            li = li < 0 ? 0 : li > half ? half : li;
            p[i] = 2 * li - half;
            e = b - R[i + i * nd]! * p[i]!;
            d += e * e;
          }
          metrics.push(d);
        }
      }
      metrics.sort((a, b) => a - b);
      // the two least metrics of different candidates (passes repeat candidates with equal metrics up to rounding)
      const best = metrics[0]!;
      const next = metrics.find((x) => x > best * (1 + 1e-12) + 1e-300);
      if (next !== undefined) tie = Math.min(tie, (next - best) / (EPS32 * scale[v]! * worstCond));
      margin[v] = tie;
      condOf[v] = worstCond;
    }
  }
  return { symbols: out.symbols, llr: out.llr, nodes, margin, scale, cond: condOf };
}

interface Comparison {
  vectors: number;
  symbolMismatch: number;
  llrMismatch: number;
  nearTies: number;
  maxLlrErr: number;
  eligible: number;
}

/** Compares the kernel's outputs with the reference (file comment); returns the counts. */
function compare(pb: Problem, got: Outputs, ref: Reference, skipVector?: (v: number) => boolean): Comparison {
  const { c, m } = pb;
  const vectors = c.channels * c.vpc,
    nbits = c.nt * m.bitsPerSymbol;
  const r: Comparison = { vectors, symbolMismatch: 0, llrMismatch: 0, nearTies: 0, maxLlrErr: 0, eligible: 0 };
  for (let v = 0; v < vectors; v++) {
    if (skipVector?.(v)) continue;
    if (ref.margin[v]! <= NEAR_TIE) r.eligible++;
    if (got.status) {
      assert.equal(got.status[STATUS_WORDS * v], 0, `vector ${v}: flags ${got.status[STATUS_WORDS * v]}`);
      assert.equal(got.status[STATUS_WORDS * v + 1], ref.nodes[v], `vector ${v}: nodes`);
    }
    let symOk = true;
    for (let j = 0; j < c.nt; j++) if (got.symbols[v * c.nt + j] !== ref.symbols[v * c.nt + j]) symOk = false;
    let llrOk = true,
      worst = '';
    if (c.soft) {
      const tol = LLR_TOL_ABS + (LLR_TOL_REL * ref.cond[v]! * ref.scale[v]!) / pb.noise[v]!;
      for (let b = 0; b < nbits; b++) {
        const g = got.llr[v * nbits + b]!,
          w = ref.llr[v * nbits + b]!;
        assert.ok(
          Number.isFinite(g) && Math.abs(g) <= c.clip,
          `vector ${v} bit ${b}: LLR ${g} not finite within the clip`,
        );
        const err = Math.abs(g - w);
        if (err > tol) {
          llrOk = false;
          worst = `bit ${b}: GPU ${g}, CPU ${w}, tolerance ${tol}`;
        } else r.maxLlrErr = Math.max(r.maxLlrErr, err / tol);
      }
    }
    if (!symOk) r.symbolMismatch++;
    if (!llrOk) r.llrMismatch++;
    if (!symOk || !llrOk) {
      assert.ok(
        ref.margin[v]! <= NEAR_TIE,
        `vector ${v} (${JSON.stringify(c)}): GPU differs from the CPU (symbols ${symOk ? 'equal' : 'differ'}, LLRs ${llrOk ? 'within' : 'beyond'} tolerance${worst ? `, ${worst}` : ''}) with no float64 near-tie (margin ${ref.margin[v]}, cond ${ref.cond[v]})`,
      );
      r.nearTies++;
    }
  }
  return r;
}

const EMU_CASES: NwayCase[] = [
  { nr: 4, nt: 4, mod: '16qam', passes: 1, snrDb: 12, channels: 12, vpc: 14, soft: true, clip: 8 },
  { nr: 8, nt: 8, mod: 'qpsk', passes: 2, snrDb: 6, channels: 4, vpc: 6, soft: true, clip: 8 },
  { nr: 4, nt: 4, mod: '64qam', passes: 4, snrDb: 20, channels: 6, vpc: 8, soft: true, clip: 8 },
  { nr: 2, nt: 2, mod: 'qpsk', passes: 2, snrDb: 0, channels: 20, vpc: 7, soft: true, clip: 8 },
  { nr: 4, nt: 2, mod: '16qam', passes: 2, snrDb: 25, channels: 16, vpc: 5, soft: true, clip: 1e30 },
  { nr: 3, nt: 3, mod: 'bpsk', passes: 3, snrDb: 5, channels: 20, vpc: 6, soft: true, clip: 8 },
  { nr: 2, nt: 2, mod: '256qam', passes: 1, snrDb: 30, channels: 4, vpc: 4, soft: true, clip: 8 },
  { nr: 4, nt: 4, mod: '16qam', passes: 3, snrDb: 8, channels: 8, vpc: 6, soft: false, clip: 8 },
  // 48 threads a vector: a vector spans two warps
  { nr: 4, nt: 4, mod: '256qam', passes: 3, snrDb: 28, channels: 3, vpc: 4, soft: true, clip: 8 },
];

test('N-way kernels (emulated): decisions and LLRs equal the CPU engine except float64 near-ties', {
  skip: skipEmu,
}, () => {
  for (const c of EMU_CASES) {
    const pb = makeProblem(c, randomInt(2 ** 31));
    const got = emulate(pb);
    const r = compare(pb, got, reference(pb));
    if (process.env.NWAY_TEST_VERBOSE) console.log(`emulated ${JSON.stringify(c)}: ${JSON.stringify(r)}`);
    assert.ok(
      r.nearTies <= Math.max(2, r.vectors / 50),
      `${JSON.stringify(c)}: ${r.nearTies} near-ties of ${r.vectors}`,
    );
  }
});

test('N-way kernels (emulated): other table copies and block sizes, and the measurement builds (level floor by conversion, R read where used, QR records by the element loop) give the same results', {
  skip: skipEmu,
}, () => {
  const variants: NwayTuning[] = [
    { copies: 1 },
    { copies: 2, blockThreads: 128 },
    { build: nwayBuild({ NW_MODE: 1 }) },
    { build: nwayBuild({ NW_MODE: 2 }) },
    { qrBuild: qrStoreLoopBuild() },
  ];
  for (const tuning of variants) {
    for (const c of [EMU_CASES[0]!, EMU_CASES[2]!, EMU_CASES[3]!, EMU_CASES[5]!, EMU_CASES[7]!]) {
      const pb = makeProblem({ ...c, channels: Math.ceil(c.channels / 2) }, randomInt(2 ** 31));
      const r = compare(pb, emulate(pb, tuning), reference(pb));
      assert.ok(
        r.nearTies <= Math.max(2, r.vectors / 50),
        `${JSON.stringify(tuning.build?.defines ?? tuning)} ${JSON.stringify(c)}: ${r.nearTies} near-ties of ${r.vectors}`,
      );
    }
  }
});

/** Two runs' symbols, LLRs (as bits) and status words are the same. */
function assertSameOutputs(want: Outputs, got: Outputs, what: string): void {
  const bits = (x: Float32Array): Int32Array => new Int32Array(x.buffer, x.byteOffset, x.length);
  assert.deepEqual(Array.from(got.symbols), Array.from(want.symbols), `${what}: symbols`);
  assert.deepEqual(Array.from(bits(got.llr)), Array.from(bits(want.llr)), `${what}: LLR bits`);
  assert.deepEqual(Array.from(got.status ?? []), Array.from(want.status ?? []), `${what}: status words`);
}

/** One vector per channel: QAM with nd a multiple of 4, of 2 (3x3 QPSK: nd = 6) and odd (BPSK), soft and hard, a vector over two warps. */
const Z_CASES: NwayCase[] = [
  { nr: 4, nt: 4, mod: '16qam', passes: 4, snrDb: 10, channels: 40, vpc: 1, soft: true, clip: 8 },
  { nr: 4, nt: 4, mod: '16qam', passes: 1, snrDb: 14, channels: 40, vpc: 1, soft: true, clip: 8 },
  { nr: 8, nt: 8, mod: 'qpsk', passes: 2, snrDb: 6, channels: 12, vpc: 1, soft: true, clip: 8 },
  { nr: 3, nt: 3, mod: 'qpsk', passes: 3, snrDb: 4, channels: 40, vpc: 1, soft: true, clip: 8 },
  { nr: 4, nt: 2, mod: '64qam', passes: 2, snrDb: 22, channels: 30, vpc: 1, soft: true, clip: 1e30 },
  { nr: 3, nt: 3, mod: 'bpsk', passes: 3, snrDb: 5, channels: 40, vpc: 1, soft: true, clip: 8 },
  { nr: 4, nt: 4, mod: '16qam', passes: 3, snrDb: 8, channels: 30, vpc: 1, soft: false, clip: 8 },
  { nr: 4, nt: 4, mod: '256qam', passes: 3, snrDb: 28, channels: 6, vpc: 1, soft: true, clip: 8 },
];

test("N-way kernels (emulated), one vector per channel: z records (QR forms z = Q^T y) give the Q records' decisions, LLRs and status bit for bit, and the CPU engine's except float64 near-ties", {
  skip: skipEmu,
}, () => {
  for (const c of Z_CASES) {
    const pb = makeProblem(c, randomInt(2 ** 31));
    const z = emulate(pb, {}, true);
    assertSameOutputs(emulate(pb), z, JSON.stringify(c));
    const r = compare(pb, z, reference(pb));
    assert.ok(
      r.nearTies <= Math.max(2, r.vectors / 50),
      `${JSON.stringify(c)}: ${r.nearTies} near-ties of ${r.vectors}`,
    );
  }
  // the QR kernel's measurement build (records by the element loop) forms the same z
  for (const c of [Z_CASES[0]!, Z_CASES[3]!, Z_CASES[5]!]) {
    const pb = makeProblem({ ...c, channels: Math.ceil(c.channels / 2) }, randomInt(2 ** 31));
    assertSameOutputs(
      emulate(pb),
      emulate(pb, { qrBuild: qrStoreLoopBuild() }, true),
      `QR_STORE_LOOP ${JSON.stringify(c)}`,
    );
  }
});

/**
 * A-priori LLRs for a problem's vectors (vectors x nt x bitsPerSymbol float32): every fifth vector
 * none (all zero), else each stream's all zero with probability 1/4, else a bit's ~ N(0, 3^2), 0
 * with probability 1/8.
 */
function randomPriors(pb: Problem, seed: number): Float32Array {
  const rng = new Philox(seed);
  const vectors = pb.c.channels * pb.c.vpc,
    bps = pb.m.bitsPerSymbol;
  const prior = new Float32Array(vectors * pb.c.nt * bps);
  for (let v = 0; v < vectors; v++) {
    if (v % 5 === 4) continue;
    for (let j = 0; j < pb.c.nt; j++) {
      if (rng.int(4) === 0) continue;
      for (let b = 0; b < bps; b++) prior[(v * pb.c.nt + j) * bps + b] = rng.int(8) === 0 ? 0 : 3 * rng.normal();
    }
  }
  return prior;
}

/** Cases with priors (z: the z-record plan): QAM, BPSK, hard, unclipped, 8x8 (16 real dimensions), a vector over two warps. */
const PRIOR_CASES: [NwayCase, boolean][] = [
  [EMU_CASES[0]!, false],
  [EMU_CASES[1]!, false],
  [EMU_CASES[2]!, false],
  [EMU_CASES[3]!, false],
  [EMU_CASES[4]!, false],
  [EMU_CASES[5]!, false],
  [EMU_CASES[6]!, false],
  [EMU_CASES[7]!, false],
  [EMU_CASES[8]!, false],
  [Z_CASES[0]!, true],
];

test('N-way kernels (emulated) with a-priori LLRs: decisions, extrinsic LLRs and node counts equal the CPU engine with the same priors except float64 near-ties; all-zero priors give the prior-free build bit for bit', {
  skip: skipEmu,
}, () => {
  let changed = 0,
    searched = 0;
  for (const [c, z] of PRIOR_CASES) {
    const pb = makeProblem(c, randomInt(2 ** 31));
    const prior = randomPriors(pb, randomInt(2 ** 31));
    const got = emulate(pb, {}, z, prior);
    const r = compare(pb, got, reference(pb, prior));
    if (process.env.NWAY_TEST_VERBOSE) console.log(`emulated with priors ${JSON.stringify(c)}: ${JSON.stringify(r)}`);
    assert.ok(
      r.nearTies <= Math.max(2, r.vectors / 50),
      `${JSON.stringify(c)}: ${r.nearTies} near-ties of ${r.vectors}`,
    );
    const plain = emulate(pb, {}, z);
    assertSameOutputs(
      plain,
      emulate(pb, {}, z, new Float32Array(prior.length)),
      `all-zero priors ${JSON.stringify(c)}`,
    );
    // the priors matter: LLRs move (where not clipped either way), and levels with priors search
    // all children (more nodes)
    const nbits = c.nt * pb.m.bitsPerSymbol;
    for (let v = 0; v < r.vectors; v++) {
      if (got.status![STATUS_WORDS * v + 1]! > plain.status![STATUS_WORDS * v + 1]!) searched++;
      for (let b = 0; b < nbits && c.soft; b++)
        if (got.llr[v * nbits + b] !== plain.llr[v * nbits + b]) {
          changed++;
          break;
        }
    }
  }
  assert.ok(changed > 200, `only ${changed} vectors' LLRs changed by their priors`);
  assert.ok(searched > 200, `only ${searched} vectors searched all children somewhere`);
});

/** Q-record (several vectors a channel) and z-record (one) cases for the QR mappings' comparison: 4x4 16-QAM N = 1..4, 2x2, 8x8, tall, BPSK, hard. */
const MAPPING_CASES: [NwayCase, boolean][] = [
  [Z_CASES[0]!, true],
  [Z_CASES[1]!, true],
  [Z_CASES[2]!, true],
  [Z_CASES[4]!, true],
  [Z_CASES[5]!, true],
  [Z_CASES[6]!, true],
  [{ nr: 4, nt: 4, mod: '16qam', passes: 2, snrDb: 10, channels: 12, vpc: 5, soft: true, clip: 8 }, false],
  [EMU_CASES[3]!, false],
  [EMU_CASES[5]!, false],
  [EMU_CASES[1]!, false],
];

test("N-way kernels (emulated): the QR kernel with one thread per QR (qr-thread.cu) gives the column mapping's (qr-batch.cu) symbols, LLRs and status bit for bit", {
  skip: skipEmu,
}, () => {
  for (const [c, z] of MAPPING_CASES) {
    const pb = makeProblem(c, randomInt(2 ** 31));
    assertSameOutputs(
      emulate(pb, { qrMapping: 'column' }, z),
      emulate(pb, { qrMapping: 'thread' }, z),
      `${JSON.stringify(c)} z=${z}`,
    );
  }
  // other launch choices of the thread kernel (block size, whole records staged)
  const [c, z] = MAPPING_CASES[0]!;
  const pb = makeProblem(c, randomInt(2 ** 31));
  assertSameOutputs(
    emulate(pb, { qrMapping: 'column' }, z),
    emulate(pb, { qrMapping: 'thread', qrThread: { threads: 256, chunk: 64 } }, z),
    `${JSON.stringify(c)} z=${z} 256 threads, whole records`,
  );
});

test('N-way tuning is validated', () => {
  const m = detectorRealModel('nway', constellation('16qam'), 4, 4);
  for (const bad of [
    { copies: 3 },
    { copies: 8 },
    { blockThreads: 100 },
    { blockThreads: 2048 },
    { minBlocks: 0 },
    { minBlocks: 1.5 },
    { qrMapping: 'rows' as 'thread' },
    { qrMapping: 'thread' as const, qrBuild: qrStoreLoopBuild() },
  ]) {
    assert.throws(() => nwayTuningOf(m, bad), InvalidArgumentError, JSON.stringify(bad));
  }
  assert.deepEqual(nwayTuningOf(m, { copies: 4, blockThreads: 256, minBlocks: 2 }), {
    copies: 4,
    blockThreads: 256,
    minBlocks: 2,
  });
});

/** A vector flagged on entry is left alone, a singular channel's vectors get RANK_DEFICIENT, the rest equal the CPU. */
function checkFlags(runner: (pb: Problem) => Outputs): void {
  const c: NwayCase = { nr: 2, nt: 2, mod: '16qam', passes: 2, snrDb: 15, channels: 6, vpc: 4, soft: true, clip: 8 };
  const pb = makeProblem(c, randomInt(2 ** 31));
  const H0 = pb.H.slice();
  for (let i = 0; i < 2 * c.nr; i++) pb.H[2 * (2 * c.nr * c.nt + c.nr) + i] = 0; // channel 2: stream 1 is zero
  pb.statusIn[STATUS_WORDS * 5] = MIMO_STATUS.NON_FINITE;
  pb.statusIn[STATUS_WORDS * 5 + 1] = 12345;
  const got = runner(pb);
  const ref = reference({ ...pb, H: H0 });
  const nbits = c.nt * pb.m.bitsPerSymbol;
  const status = got.status!;
  assert.deepEqual([...status.subarray(10, 12)], [MIMO_STATUS.NON_FINITE, 12345]);
  assert.deepEqual([...got.symbols.subarray(5 * c.nt, 6 * c.nt)], [-1, -1], 'flagged vector: symbols written');
  assert.ok(
    got.llr.subarray(5 * nbits, 6 * nbits).every((x) => Number.isNaN(x) || x === -999),
    'flagged vector: LLRs written',
  );
  for (let v = 8; v < 12; v++)
    assert.ok(
      status[STATUS_WORDS * v]! & MIMO_STATUS.RANK_DEFICIENT,
      `vector ${v} of the singular channel: flags ${status[STATUS_WORDS * v]}`,
    );
  compare(pb, got, ref, (v) => v === 5 || (v >= 8 && v < 12));
}

test(
  'N-way kernels (emulated): a vector flagged on entry is untouched, a singular channel is RANK_DEFICIENT',
  { skip: skipEmu },
  () => checkFlags(emulate),
);

test(
  'N-way kernels (GPU): a vector flagged on entry is untouched, a singular channel is RANK_DEFICIENT',
  { skip: skipGpu },
  () => checkFlags(onGpu),
);

test('N-way kernels (GPU): 10^5 vectors per configuration equal the CPU engine except near-ties', {
  skip: skipGpu,
  timeout: 600_000,
}, () => {
  const cases: NwayCase[] = [];
  for (const [nr, nt, mod, passes] of [
    [4, 4, '16qam', 1],
    [4, 4, '64qam', 4],
    [2, 2, 'qpsk', 2],
    [4, 4, 'qpsk', 4],
    [2, 2, '64qam', 1],
    [8, 8, '16qam', 2],
    [8, 8, 'qpsk', 8],
    [3, 3, 'bpsk', 3],
    [4, 4, '16qam', 4],
  ] as const) {
    for (const snrDb of [0, 12, 24])
      cases.push({ nr, nt, mod, passes, snrDb, channels: Math.ceil(100_000 / 14), vpc: 14, soft: true, clip: 8 });
  }
  cases.push({ nr: 4, nt: 4, mod: '16qam', passes: 2, snrDb: 12, channels: 10_000, vpc: 1, soft: false, clip: 8 });
  cases.push({ nr: 2, nt: 2, mod: '256qam', passes: 2, snrDb: 30, channels: 2000, vpc: 14, soft: true, clip: 8 });
  for (const c of cases) {
    const big = c.mod === '64qam' || c.nt === 8;
    const cc = big ? { ...c, channels: Math.ceil(c.channels / 4) } : c; // the float64 reference is the slow part
    const pb = makeProblem(cc, randomInt(2 ** 31));
    const t0 = performance.now();
    const got = onGpu(pb);
    const r = compare(pb, got, reference(pb));
    console.log(
      `nway GPU ${cc.nr}x${cc.nt} ${cc.mod} N=${cc.passes} ${cc.snrDb} dB: ${r.vectors} vectors, ${r.symbolMismatch} symbol and ${r.llrMismatch} LLR differences, all ${r.nearTies} float64 near-ties (${r.eligible} vectors hold one); worst LLR error ${r.maxLlrErr.toFixed(3)} of tolerance (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    );
    assert.ok(r.nearTies <= r.vectors / 200, `${JSON.stringify(cc)}: ${r.nearTies} near-ties`);
  }
});

test('N-way kernels (GPU) with a-priori LLRs: 2x10^4+ vectors per configuration equal the CPU engine with the same priors except near-ties (node counts too); with all-zero priors, the CPU engine without priors', {
  skip: skipGpu,
  timeout: 600_000,
}, () => {
  const cases: [NwayCase, boolean][] = [];
  for (const [nr, nt, mod, passes] of [
    [4, 4, '16qam', 1],
    [4, 4, '16qam', 4],
    [4, 4, '64qam', 4],
    [2, 2, 'qpsk', 2],
    [8, 8, 'qpsk', 8],
    [3, 3, 'bpsk', 3],
    [2, 2, '256qam', 1],
  ] as const) {
    for (const snrDb of [0, 12, 24])
      cases.push([
        { nr, nt, mod, passes, snrDb, channels: Math.ceil(20_000 / 14), vpc: 14, soft: true, clip: 8 },
        false,
      ]);
  }
  cases.push([
    { nr: 4, nt: 4, mod: '16qam', passes: 4, snrDb: 10, channels: 20_000, vpc: 1, soft: true, clip: 8 },
    true,
  ]);
  cases.push([
    { nr: 4, nt: 4, mod: '16qam', passes: 2, snrDb: 12, channels: 20_000, vpc: 1, soft: false, clip: 8 },
    true,
  ]);
  for (const [c, z] of cases) {
    const pb = makeProblem(c, randomInt(2 ** 31));
    const prior = randomPriors(pb, randomInt(2 ** 31));
    const got = onGpu(pb, z, {}, prior);
    const r = compare(pb, got, reference(pb, prior));
    console.log(
      `nway GPU with priors ${c.nr}x${c.nt} ${c.mod} N=${c.passes} ${c.snrDb} dB z=${z}: ${r.vectors} vectors, ${r.symbolMismatch} symbol and ${r.llrMismatch} LLR differences, all ${r.nearTies} float64 near-ties (${r.eligible} vectors hold one); worst LLR error ${r.maxLlrErr.toFixed(3)} of tolerance`,
    );
    assert.ok(r.nearTies <= r.vectors / 200, `${JSON.stringify(c)}: ${r.nearTies} near-ties`);
    // all-zero priors: the CPU engine without priors. Not bit for bit the prior-free build here (the
    // emulated test checks that): the two builds are compiled apart and NVRTC contracts their
    // products into FMAs differently, so their LLRs differ in the last bits (seen: 3 ulps).
    const r0 = compare(pb, onGpu(pb, z, {}, new Float32Array(prior.length)), reference(pb));
    assert.ok(r0.nearTies <= r0.vectors / 200, `all-zero priors ${JSON.stringify(c)}: ${r0.nearTies} near-ties`);
  }
});

test("N-way kernels (GPU), one vector per channel: z records give the Q records' outputs bit for bit; a z-record plan refuses a chunk of several vectors a channel", {
  skip: skipGpu,
}, () => {
  for (const c of Z_CASES) {
    const pb = makeProblem({ ...c, channels: c.nt === 8 || c.mod === '256qam' ? 5000 : 20_000 }, randomInt(2 ** 31));
    assertSameOutputs(onGpu(pb), onGpu(pb, true), JSON.stringify(c));
  }
  const ctx = CudaContext.get(0);
  ctx.makeCurrent();
  const m = detectorRealModel('nway', constellation('16qam'), 4, 4);
  const plan = new NwayPlan(ctx, m, 2, true, 8, {}, true);
  const stream = Stream.create(ctx);
  const chunk = {
    channels: 1,
    vectorsPerChannel: 2,
    H: 0n,
    y: 0n,
    noise: 0n,
    symbols: 0n,
    llr: 0n,
    status: 0n,
    scratch: [0n],
  };
  for (const stage of plan.stages) assert.throws(() => stage.enqueue(stream, chunk), InvalidArgumentError, stage.name);
  assert.throws(() => plan.enqueue(stream, chunk), InvalidArgumentError);
  stream.destroy();
});

test("N-way kernels (GPU): the QR kernel with one thread per QR gives the column mapping's outputs bit for bit (10^4+ vectors a case)", {
  skip: skipGpu,
}, () => {
  for (const [c, z] of MAPPING_CASES) {
    const pb = makeProblem({ ...c, channels: Math.ceil((c.nt === 8 ? 5000 : 20_000) / c.vpc) }, randomInt(2 ** 31));
    assertSameOutputs(
      onGpu(pb, z, { qrMapping: 'column' }),
      onGpu(pb, z, { qrMapping: 'thread' }),
      `GPU ${JSON.stringify(c)} z=${z}`,
    );
  }
});

test("detectAsync engine cuda (ssfe, nway): the CPU engine's decisions and LLRs except near-ties, a singular channel a RankDeficientError", {
  skip: skipGpu,
}, async () => {
  const cases: NwayCase[] = [
    { nr: 4, nt: 4, mod: '16qam', passes: 1, snrDb: 10, channels: 3000, vpc: 14, soft: true, clip: 8 },
    { nr: 4, nt: 4, mod: '64qam', passes: 4, snrDb: 22, channels: 600, vpc: 14, soft: true, clip: 5 },
    { nr: 2, nt: 2, mod: 'qpsk', passes: 2, snrDb: 3, channels: 5000, vpc: 3, soft: true, clip: 8 },
    // one vector per channel: the z-record plan
    { nr: 4, nt: 4, mod: '16qam', passes: 4, snrDb: 12, channels: 10_000, vpc: 1, soft: true, clip: 8 },
  ];
  for (const c of cases) {
    const pb = makeProblem(c, randomInt(2 ** 31));
    const detector = c.passes === 1 ? ('ssfe' as const) : ('nway' as const);
    const res = await detectAsync(
      { nr: c.nr, nt: c.nt, H: pb.H, y: pb.y, vectorsPerChannel: c.vpc, noiseVar: pb.noise },
      {
        detector,
        modulation: c.mod,
        engine: 'cuda',
        ...(detector === 'nway' ? { passes: c.passes } : {}),
        ...(c.clip !== 8 ? { llrClip: c.clip } : {}),
      },
    );
    assert.equal(res.stats.engine, 'cuda');
    const r = compare(
      pb,
      { symbols: res.symbols, llr: res.llr as unknown as Float32Array, status: null },
      reference(pb),
    );
    console.log(`detectAsync ${detector} ${c.nr}x${c.nt} ${c.mod} N=${c.passes}: ${JSON.stringify(r)}`);
    assert.ok(r.nearTies <= r.vectors / 200, `${JSON.stringify(c)}: ${r.nearTies} near-ties`);
  }
  const c = cases[0]!;
  const pb = makeProblem({ ...c, channels: 20 }, randomInt(2 ** 31));
  for (let i = 0; i < 2 * c.nr; i++) pb.H[2 * (7 * c.nr * c.nt + 2 * c.nr) + i] = 0;
  await assert.rejects(
    detectAsync(
      { nr: c.nr, nt: c.nt, H: pb.H, y: pb.y, vectorsPerChannel: c.vpc, noiseVar: pb.noise },
      { detector: 'nway', modulation: c.mod, engine: 'cuda' },
    ),
    RankDeficientError,
  );
});

test("detectAsync engine cuda with a-priori LLRs (ssfe, nway): the CPU engine's decisions and extrinsic LLRs with the same priors except near-ties, nodes the CPU's; a singular channel a RankDeficientError (its vectors redone on the CPU engine with their priors)", {
  skip: skipGpu,
}, async () => {
  const cases: NwayCase[] = [
    { nr: 4, nt: 4, mod: '16qam', passes: 1, snrDb: 10, channels: 2000, vpc: 14, soft: true, clip: 8 },
    { nr: 4, nt: 4, mod: '64qam', passes: 4, snrDb: 22, channels: 400, vpc: 14, soft: true, clip: 5 },
    { nr: 2, nt: 2, mod: 'qpsk', passes: 2, snrDb: 3, channels: 4000, vpc: 3, soft: true, clip: 8 },
    // one vector per channel: the z-record plan
    { nr: 4, nt: 4, mod: '16qam', passes: 4, snrDb: 12, channels: 10_000, vpc: 1, soft: true, clip: 8 },
  ];
  for (const c of cases) {
    const pb = makeProblem(c, randomInt(2 ** 31));
    const prior = randomPriors(pb, randomInt(2 ** 31));
    const detector = c.passes === 1 ? ('ssfe' as const) : ('nway' as const);
    const res = await detectAsync(
      { nr: c.nr, nt: c.nt, H: pb.H, y: pb.y, vectorsPerChannel: c.vpc, noiseVar: pb.noise, priorLlr: prior },
      {
        detector,
        modulation: c.mod,
        engine: 'cuda',
        ...(detector === 'nway' ? { passes: c.passes } : {}),
        ...(c.clip !== 8 ? { llrClip: c.clip } : {}),
      },
    );
    assert.equal(res.stats.engine, 'cuda');
    const ref = reference(pb, prior);
    const r = compare(pb, { symbols: res.symbols, llr: res.llr as unknown as Float32Array, status: null }, ref);
    console.log(`detectAsync ${detector} with priors ${c.nr}x${c.nt} ${c.mod} N=${c.passes}: ${JSON.stringify(r)}`);
    assert.ok(r.nearTies <= r.vectors / 200, `${JSON.stringify(c)}: ${r.nearTies} near-ties`);
    assert.equal(
      res.stats.nodesVisited,
      ref.nodes.reduce((a, b) => a + b, 0),
      `${JSON.stringify(c)}: nodes`,
    );
  }
  const c = cases[0]!;
  const pb = makeProblem({ ...c, channels: 20 }, randomInt(2 ** 31));
  for (let i = 0; i < 2 * c.nr; i++) pb.H[2 * (7 * c.nr * c.nt + 2 * c.nr) + i] = 0;
  await assert.rejects(
    detectAsync(
      {
        nr: c.nr,
        nt: c.nt,
        H: pb.H,
        y: pb.y,
        vectorsPerChannel: c.vpc,
        noiseVar: pb.noise,
        priorLlr: randomPriors(pb, randomInt(2 ** 31)),
      },
      { detector: 'nway', modulation: c.mod, engine: 'cuda' },
    ),
    RankDeficientError,
  );
});

test("N-way QR mapping by default: one thread a QR with one vector a channel (z records), the paper's column mapping otherwise", () => {
  for (const [nt, mod] of [
    [2, '16qam'],
    [4, '16qam'],
    [4, '64qam'],
    [3, 'qpsk'],
  ] as const) {
    const m = detectorRealModel('nway', constellation(mod), nt, nt);
    assert.equal(nwayQrMapping(m, true), 'thread', `${nt}x${nt} ${mod}, z records`);
    assert.equal(nwayQrMapping(m, false), 'column', `${nt}x${nt} ${mod}, Q records`);
  }
  // too many entries for one thread's registers: the column mapping either way
  assert.equal(nwayQrMapping(detectorRealModel('nway', constellation('16qam'), 8, 8), true), 'column');
});
