/**
 * The checks of the GPU linear detectors (zf, mmse, sic) against the CPU engine, shared by
 * test/mimo/gpu-linear.test.ts (emulated and on the device) and bench/mimo/gpu-linear.ts (the
 * 10^5-vector check): random Rayleigh cases normalized as the engine's normalize kernel leaves them
 * (float32 values, each channel scaled by a power of two to a largest entry in [1, 2)), runners that
 * execute the kernels (CUDA emulator, device), and a comparison that accepts a decision that differs
 * from the CPU engine's only where the CPU's own float64 estimate lies within a float32 error bound
 * of the slicing boundary between the two decisions (or, for sic, where two streams' post-detection
 * SINRs tie within that bound and float32 took the other order).
 */
import { RankDeficientError } from '../../src/core/errors.js';
import { Philox } from '../../src/core/rng.js';
import type { CudaContext } from '../../src/gpu/context.js';
import { DeviceBuffer } from '../../src/gpu/memory.js';
import { Stream } from '../../src/gpu/stream.js';
import { addNoise, randomSymbols, snrToNoiseVar, transmit } from '../../src/mimo/channel.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { detect } from '../../src/mimo/detect.js';
import type { DetectorSetup } from '../../src/mimo/detectors/detector.js';
import { createLinear } from '../../src/mimo/detectors/zf/linear.js';
import { detector as sicCpu, type SicPrep } from '../../src/mimo/detectors/sic/cpu.js';
import {
  createLinearPlan,
  kindDefines,
  linearKernelUrls,
  prepBlock,
  prepLaunch,
  recordFloats,
} from '../../src/mimo/detectors/zf/cuda-linear.js';
import { MIMO_STATUS } from '../../src/mimo/gpu/status.js';
import { constellation, sliceSymbol, type Constellation } from '../../src/mimo/modulation.js';
import { gramInto, invertInPlace } from '../../src/mimo/preprocess/complex.js';
import type { Modulation } from '../../src/mimo/types.js';
import { compileEmulated, runEmulated } from '../gpu/cuda-emulator.js';
import { cutOutput, stdinOf } from './gpu-test-env.js';
import { fileURLToPath } from 'node:url';

export type LinearKind = 'zf' | 'mmse' | 'sic';

export interface LinearCase {
  kind: LinearKind;
  nt: number;
  nr: number;
  mod: Modulation;
  channels: number;
  vpc: number;
  /** Normalized channels, float32 values (channels x nr x nt complex). */
  H: Float64Array;
  /** Normalized received vectors, float32 values. */
  y: Float64Array;
  /** N0 per vector, normalized, float32 values. */
  noise: Float64Array;
  /** Status words on input (the engine's flags; 0 for clean vectors). */
  status: Int32Array;
}

const f32 = Math.fround;

/**
 * A random case: Rayleigh channels, uniform symbols, Es/N0 = snrDb. `mixedNoise`: that fraction of
 * the vectors (never a channel's first) gets another N0; `preFlagged`: that fraction of the vectors
 * arrives flagged NON_FINITE by the engine (as if its input held a NaN), the first vector of a
 * channel included, so that the reference N0 is the first unflagged vector's.
 */
export function makeLinearCase(
  seed: number,
  kind: LinearKind,
  nt: number,
  nr: number,
  mod: Modulation,
  snrDb: number,
  channels: number,
  vpc: number,
  opts: { mixedNoise?: number; preFlagged?: number } = {},
): LinearCase {
  const rng = new Philox(seed, 15);
  const con = constellation(mod);
  const vectors = channels * vpc;
  const H = rayleighChannels(rng, channels, nt, nr);
  const { symbols } = randomSymbols(rng, vectors * nt, mod);
  const n0 = snrToNoiseVar(snrDb, 'esn0', con.bitsPerSymbol);
  const y = addNoise(rng, transmit(H, symbols, nt, nr, vpc), n0);
  const noise = new Float64Array(vectors);
  const status = new Int32Array(2 * vectors);
  for (let v = 0; v < vectors; v++) {
    noise[v] = n0;
    if (opts.mixedNoise && v % vpc !== 0 && rng.uniform() < opts.mixedNoise) noise[v] = n0 * (0.5 + rng.uniform());
    if (opts.preFlagged && rng.uniform() < opts.preFlagged) status[2 * v] = MIMO_STATUS.NON_FINITE;
  }
  const hLen = 2 * nr * nt,
    yLen = 2 * nr;
  for (let c = 0; c < channels; c++) {
    let m = 0;
    for (let e = 0; e < hLen; e++) {
      H[c * hLen + e] = f32(H[c * hLen + e]!);
      m = Math.max(m, Math.abs(H[c * hLen + e]!));
    }
    const p = -Math.floor(Math.log2(m)),
      s = 2 ** p;
    for (let e = 0; e < hLen; e++) H[c * hLen + e] = H[c * hLen + e]! * s;
    for (let v = c * vpc; v < (c + 1) * vpc; v++) {
      for (let e = 0; e < yLen; e++) y[v * yLen + e] = f32(y[v * yLen + e]!) * s;
      noise[v] = f32(noise[v]! * s * s);
    }
  }
  return { kind, nt, nr, mod, channels, vpc, H, y, noise, status };
}

export interface GpuOutput {
  symbols: Int32Array;
  status: Int32Array;
  /** The channels' scratch records (recordFloats floats each). */
  rec: Float32Array;
}

/** Symbols the kernels must not write are poisoned with this. */
export const POISON = -7;

const EMU_MAIN = String.raw`
int main() {
  int h[4];
  if (fread(h, 4, 4, stdin) != 4) return 1;
  const int channels = h[0], vpc = h[1], vectors = channels * vpc, prepThreads = h[2], prepShared = h[3];
  std::vector<float> H((size_t)channels * 2 * LIN_NR * LIN_NT), y((size_t)vectors * 2 * LIN_NR), noise(vectors);
  std::vector<int> st(2 * (size_t)vectors), sym((size_t)vectors * LIN_NT, -7);
  if (fread(H.data(), 4, H.size(), stdin) != H.size() || fread(y.data(), 4, y.size(), stdin) != y.size()
      || fread(noise.data(), 4, noise.size(), stdin) != noise.size() || fread(st.data(), 4, st.size(), stdin) != st.size()) return 1;
#ifdef EMU_SIC
  const int stride = SIC_STRIDE;
#else
  const int stride = LIN_STRIDE;
#endif
  std::vector<float> rec((size_t)channels * stride, std::nanf(""));
  if (emu_launch((channels + prepThreads - 1) / prepThreads, dim3{(unsigned)prepThreads, 1, 1}, prepShared, [&] {
#ifdef EMU_SIC
    sic_prep(H.data(), noise.data(), st.data(), rec.data(), channels, vpc);
#else
    linear_prep(H.data(), noise.data(), st.data(), rec.data(), channels, vpc);
#endif
  })) return 2;
#ifdef EMU_SIC
  if (emu_launch((vectors + 127) / 128, dim3{128, 1, 1}, 0, [&] { sic_detect(H.data(), y.data(), noise.data(), rec.data(), sym.data(), st.data(), vectors, vpc); })) return 2;
#else
  const int per = 256 / LIN_NT;
  if (emu_launch((vectors + per - 1) / per, dim3{(unsigned)(per * LIN_NT), 1, 1}, 0, [&] { linear_detect(y.data(), noise.data(), rec.data(), sym.data(), st.data(), vectors, vpc); })) return 2;
#endif
  fwrite(sym.data(), 4, sym.size(), stdout);
  fwrite(st.data(), 4, st.size(), stdout);
  fwrite(rec.data(), 4, rec.size(), stdout);
  return 0;
}
`;

/** Runs the kind's two kernels on the CPU through the CUDA emulator (the host's launch shapes and defines). */
export function runLinearEmulated(c: LinearCase): GpuOutput {
  const urls = linearKernelUrls(c.kind);
  const defines = Object.entries(kindDefines(c.kind, { nt: c.nt, nr: c.nr, constellation: constellation(c.mod) })).map(
    ([k, v]) => `-D${k}=${v}`,
  );
  if (c.kind === 'sic') defines.push('-DEMU_SIC=1');
  const { exe, error } = compileEmulated(EMU_MAIN, [fileURLToPath(urls.prep), fileURLToPath(urls.detect)], defines);
  if (error) throw new Error(error);
  const vectors = c.channels * c.vpc;
  // the host's block for this many channels on an H100 (132 multiprocessors)
  const pl = prepBlock(prepLaunch(c.kind, c.nt, c.nr), c.channels, 132);
  const head = Int32Array.of(c.channels, c.vpc, pl.threads, pl.sharedBytes);
  const out = runEmulated(
    exe,
    stdinOf([head, Float32Array.from(c.H), Float32Array.from(c.y), Float32Array.from(c.noise), c.status]),
  );
  const [symbols, status, rec] = cutOutput(out, [
    ['i32', vectors * c.nt],
    ['i32', 2 * vectors],
    ['f32', c.channels * recordFloats(c.kind, c.nt, c.nr)],
  ]);
  return { symbols, status, rec };
}

/** Device buffers of one case, reusable for timing: the plan's enqueue on them. */
export interface DeviceCase {
  /** Enqueues the plan's kernels (`parts`: one of them only, for timing; 'detect' needs a 'prep' or 'both' run before). */
  run(stream: Stream, parts?: 'both' | 'prep' | 'detect'): void;
  read(): GpuOutput;
  reset(): void;
  free(): void;
}

/** Uploads a case and builds the plan (the engine's path from the normalize kernel on). */
export function deviceCase(ctx: CudaContext, c: LinearCase): DeviceCase {
  const con = constellation(c.mod);
  const setup = {
    nr: c.nr,
    nt: c.nt,
    modulation: c.mod,
    constellation: con,
    opts: { detector: c.kind, modulation: c.mod },
    soft: false,
    maxNodes: 0,
    llrClip: 1e30,
    vectorsPerChannel: c.vpc,
    device: ctx.props,
  };
  const plans = {
    both: createLinearPlan(c.kind, ctx, setup),
    prep: createLinearPlan(c.kind, ctx, setup, 'prep'),
    detect: createLinearPlan(c.kind, ctx, setup, 'detect'),
  };
  const plan = plans.both;
  const vectors = c.channels * c.vpc;
  const up = (a: Float32Array | Int32Array): DeviceBuffer => {
    const b = DeviceBuffer.alloc(ctx, a.byteLength);
    b.upload(a);
    return b;
  };
  const H = up(Float32Array.from(c.H)),
    y = up(Float32Array.from(c.y)),
    noise = up(Float32Array.from(c.noise));
  const status = up(c.status);
  const symbols = up(new Int32Array(vectors * c.nt).fill(POISON));
  const rec = DeviceBuffer.alloc(ctx, c.channels * plan.scratchBytesPerChannel[0]!);
  const chunk = {
    channels: c.channels,
    vectorsPerChannel: c.vpc,
    H: H.ptr,
    y: y.ptr,
    noise: noise.ptr,
    symbols: symbols.ptr,
    llr: 0n,
    status: status.ptr,
    scratch: [rec.ptr],
  };
  return {
    run: (stream, parts = 'both') => plans[parts].enqueue(stream, chunk),
    read(): GpuOutput {
      const out = {
        symbols: new Int32Array(vectors * c.nt),
        status: new Int32Array(2 * vectors),
        rec: new Float32Array(rec.bytes / 4),
      };
      symbols.download(out.symbols);
      status.download(out.status);
      rec.download(out.rec);
      return out;
    },
    reset(): void {
      status.upload(c.status);
      symbols.upload(new Int32Array(vectors * c.nt).fill(POISON));
    },
    free(): void {
      for (const b of [H, y, noise, status, symbols, rec]) b.free();
    },
  };
}

/** Runs a case once on the device. */
export function runLinearDevice(ctx: CudaContext, c: LinearCase): GpuOutput {
  const d = deviceCase(ctx, c);
  const stream = Stream.create(ctx);
  try {
    d.run(stream);
    stream.synchronize();
    return d.read();
  } finally {
    stream.destroy();
    d.free();
  }
}

export interface LinearCheck {
  vectors: number;
  /** Vectors the GPU flagged (engine flags on input excluded). */
  flagged: number;
  /** Channels whose Gram matrix the GPU found singular or float32-unsafe. */
  brokenChannels: number;
  /** Vectors whose decisions differ from the CPU engine's, all of them near-ties (else in `bad`). */
  nearTies: number;
  /**
   * Of those, the ones in channels with kappa(G + a I) > ILL_CONDITIONED: there float32's rounding,
   * amplified by kappa, can put many of the channel's vectors within their bound of a boundary.
   */
  nearTiesIllConditioned: number;
  /** sic: channels where float32 took another order at a near-tie of two SINRs (their vectors not compared). */
  orderTies: number;
  /** Largest distance to the boundary over its float32 bound among the accepted near-ties (<= 1). */
  worstTie: number;
  /** Every departure from the CPU engine that is not explained (the test asserts none). */
  bad: string[];
}

const EPS32 = 2 ** -24;
/** kappa(G + a I) past which a channel's near-ties are not expected to be rare (kappa(H) past 100). */
export const ILL_CONDITIONED = 1e4;

/** The Frobenius condition number of the Gram matrix G + a I of a channel, and G^{-1}'s diagonal; null when singular. */
function conditionOf(
  H: Float64Array,
  off: number,
  nr: number,
  cols: ArrayLike<number>,
  a: number,
): { kappa: number; ginv: Float64Array } | null {
  const n = cols.length;
  const G = new Float64Array(2 * n * n),
    work = new Float64Array(2 * n * n);
  gramInto(H, off, nr, cols, a, G);
  let g2 = 0;
  for (const x of G) g2 += x * x;
  try {
    invertInPlace(G, n, work);
  } catch (e) {
    if (e instanceof RankDeficientError) return null;
    throw e;
  }
  let i2 = 0;
  for (const x of G) i2 += x * x;
  return { kappa: Math.sqrt(g2 * i2), ginv: G };
}

/** Distance of a sample to the boundary between two decisions, or -1 when they are not neighbours. */
function boundaryDistance(re: number, im: number, a: number, b: number, con: Constellation): number {
  if (con.pam === null) return Math.abs(re + im) * Math.SQRT1_2;
  const pam = con.pam;
  let d = 0;
  for (const [x, la, lb] of [
    [re, con.reLevelOf![a]!, con.reLevelOf![b]!],
    [im, con.imLevelOf![a]!, con.imLevelOf![b]!],
  ] as const) {
    if (la === lb) continue;
    if (Math.abs(la - lb) !== 1) return -1;
    d = Math.max(d, Math.abs(x - (pam.levels[la]! + pam.levels[lb]!) / 2));
  }
  return d;
}

/**
 * Compares GPU output with the CPU engine (detect() in float64 on the same float32 input): flags
 * as the contract says (engine-flagged vectors untouched, mmse / sic vectors whose N0 differs from
 * the channel's reference flagged FLOAT32_UNSAFE, no other flag but on a channel whose Gram matrix
 * broke down), unflagged vectors' decisions equal except near-ties, each checked against its bound:
 * |d| <= C eps32 kappa(G + a I) (|u| ||w|| ||r|| + |z| |a [Ginv]_kk u|) + C eps32 |z|, C = 4 (nt + nr),
 * with z = u w r the CPU's unbiased estimate, w the filter row, r the (residual) received vector.
 * `engine`: detect()'s symbols for the case (cpuEngineSymbols): the per-channel replay must equal them.
 */
export function checkLinear(c: LinearCase, gpu: GpuOutput, engine?: Int32Array): LinearCheck {
  const { kind, nt, nr, vpc, channels } = c;
  const con = constellation(c.mod);
  const vectors = channels * vpc;
  const res: LinearCheck = {
    vectors,
    flagged: 0,
    brokenChannels: 0,
    nearTies: 0,
    nearTiesIllConditioned: 0,
    orderTies: 0,
    worstTie: 0,
    bad: [],
  };
  const bad = (s: string): void => {
    if (res.bad.length < 20) res.bad.push(s);
  };
  const hLen = 2 * nr * nt,
    C = 4 * (nt + nr);
  const clean: number[] = [];
  for (let v = 0; v < vectors; v++) if (c.status[2 * v] === 0) clean.push(v);
  // the CPU engine on the vectors the engine would hand the detector
  const cpuSym = new Int32Array(vectors * nt).fill(-1);
  const byChannel = new Map<number, number[]>();
  for (const v of clean) {
    const ch = Math.floor(v / vpc);
    (byChannel.get(ch) ?? byChannel.set(ch, []).get(ch)!).push(v);
  }
  const setup: DetectorSetup = {
    nr,
    nt,
    modulation: c.mod,
    constellation: con,
    opts: { detector: kind, modulation: c.mod },
    soft: false,
    maxNodes: 0,
  };
  const lin = kind === 'sic' ? null : createLinear(setup, kind);
  const sic = kind === 'sic' ? sicCpu.create(setup) : null;
  const cols = Int32Array.from({ length: nt }, (_, j) => j);
  const rOrder = recordFloats(kind, nt, nr);
  for (let v = 0; v < vectors; v++) {
    if (c.status[2 * v] !== 0) {
      if (gpu.status[2 * v] !== c.status[2 * v])
        bad(`vector ${v}: engine flags ${c.status[2 * v]} changed to ${gpu.status[2 * v]}`);
      for (let k = 0; k < nt; k++)
        if (gpu.symbols[v * nt + k] !== POISON) {
          bad(`vector ${v}: flagged on input but its symbols were written`);
          break;
        }
    }
  }
  for (const [ch, vs] of byChannel) {
    const n0 = c.noise[vs[0]!]!;
    const a = kind === 'zf' ? 0 : n0;
    const cond = conditionOf(c.H, ch * hLen, nr, cols, a);
    // a channel whose Gram matrix broke down: its flag on every vector (the reference one first)
    const chFlag = gpu.status[2 * vs[0]!]!;
    if (chFlag !== 0) {
      res.brokenChannels++;
      res.flagged += vs.length;
      if ((chFlag & ~(MIMO_STATUS.RANK_DEFICIENT | MIMO_STATUS.FLOAT32_UNSAFE)) !== 0)
        bad(`channel ${ch}: flags ${chFlag}`);
      for (const v of vs)
        if ((gpu.status[2 * v]! & chFlag) !== chFlag)
          bad(`vector ${v}: flags ${gpu.status[2 * v]}, its channel's ${chFlag}`);
      // a breakdown in float32 only where float64 finds the Gram matrix singular or ill-conditioned
      if (cond && cond.kappa < 1e4)
        bad(`channel ${ch}: GPU flagged ${chFlag} but kappa(G + a I) = ${cond.kappa.toExponential(2)}`);
      continue;
    }
    if (!cond) {
      bad(`channel ${ch}: singular in float64 but not flagged on the GPU`);
      continue;
    }
    // the CPU engine, vector by vector with this channel's reference N0 (its other-N0 vectors are flagged)
    const sub = new Float64Array(hLen);
    sub.set(c.H.subarray(ch * hLen, (ch + 1) * hLen));
    const yv = new Float64Array(2 * nr);
    let sicPrep: SicPrep | null = null;
    let W: Float64Array | null = null,
      unbias: Float64Array | null = null;
    const linPrep = lin ? lin.prepare(sub, 0, a) : null;
    if (linPrep) {
      W = linPrep.W;
      unbias = linPrep.unbias;
    }
    if (sic) sicPrep = sic.prepare(sub, 0, n0);
    // sic: the GPU's order (from its record) against the CPU's
    let orderTie = false;
    if (sicPrep) {
      const base = ch * rOrder + 2 * nt * nr + nt;
      const remaining = Array.from({ length: nt }, (_, j) => j);
      for (let t = 0; t < nt; t++) {
        const g = gpu.rec[base + t]!,
          k = sicPrep.order[t]!;
        if (g !== k) {
          const sub2 = conditionOf(sub, 0, nr, remaining, n0)!;
          const n = remaining.length,
            d = (j: number): number => sub2.ginv[2 * (j + j * n)]!;
          const jc = remaining.indexOf(k),
            jg = remaining.indexOf(g);
          const tol = C * EPS32 * cond.kappa * d(jg);
          if (jg < 0 || !(d(jg) - d(jc) <= tol))
            bad(
              `channel ${ch}: GPU order ${g} at step ${t}, CPU ${k}: diagonal ${d(jg)} vs ${d(jc)} (bound ${tol.toExponential(2)})`,
            );
          orderTie = true;
          break;
        }
        remaining.splice(remaining.indexOf(k), 1);
      }
    }
    if (orderTie) {
      res.orderTies++;
      continue;
    }
    for (const v of vs) {
      const f = gpu.status[2 * v]!;
      const other = kind !== 'zf' && c.noise[v] !== n0;
      if (other) {
        if (f !== MIMO_STATUS.FLOAT32_UNSAFE)
          bad(`vector ${v}: N0 ${c.noise[v]} != channel's ${n0}, flags ${f} (expected FLOAT32_UNSAFE)`);
        res.flagged += f !== 0 ? 1 : 0;
        continue;
      }
      if (f !== 0) {
        bad(`vector ${v}: unexpected flags ${f}`);
        res.flagged++;
        continue;
      }
      for (let i = 0; i < 2 * nr; i++) yv[i] = c.y[v * 2 * nr + i]!;
      const out = { symbols: cpuSym.subarray(v * nt, (v + 1) * nt), llr: null, unproven: new Uint8Array(1) };
      if (lin) lin.detect(linPrep!, yv, 0, n0, out, 0);
      else sic!.detect(sicPrep!, yv, 0, n0, out, 0);
      if (engine)
        for (let k = 0; k < nt; k++)
          if (engine[v * nt + k] !== out.symbols[k]) {
            bad(`vector ${v}: the CPU detector's replay differs from detect()`);
            break;
          }
      if (lin) {
        let worst = 0,
          mismatch = false;
        for (let k = 0; k < nt; k++) {
          const g = gpu.symbols[v * nt + k]!,
            s = out.symbols[k]!;
          if (g === s) continue;
          mismatch = true;
          let re = 0,
            im = 0,
            wn = 0,
            yn = 0;
          for (let i = 0; i < nr; i++) {
            const wr = W![2 * (k + i * nt)]!,
              wi = W![2 * (k + i * nt) + 1]!;
            re += wr * yv[2 * i]! - wi * yv[2 * i + 1]!;
            im += wr * yv[2 * i + 1]! + wi * yv[2 * i]!;
            wn += wr * wr + wi * wi;
            yn += yv[2 * i]! ** 2 + yv[2 * i + 1]! ** 2;
          }
          const u = unbias![k]!,
            zr = re * u,
            zi = im * u,
            z = Math.hypot(zr, zi);
          const dist = g >= 0 && g < con.size ? boundaryDistance(zr, zi, s, g, con) : -1;
          const tol =
            C *
              EPS32 *
              cond.kappa *
              (Math.abs(u) * Math.sqrt(wn * yn) + z * Math.abs(a * cond.ginv[2 * (k + k * nt)]! * u)) +
            C * EPS32 * z;
          if (!(dist >= 0 && dist <= tol))
            bad(
              `vector ${v} stream ${k}: GPU ${g}, CPU ${s}, distance to the boundary ${dist.toExponential(2)} > bound ${tol.toExponential(2)}`,
            );
          else worst = Math.max(worst, dist / tol);
        }
        if (mismatch) {
          res.nearTies++;
          if (cond.kappa > ILL_CONDITIONED) res.nearTiesIllConditioned++;
          res.worstTie = Math.max(res.worstTie, worst);
        }
      } else {
        // sic: the CPU's steps in float64; the first step whose decision differs must be a near-tie
        const p = sicPrep!,
          pts = con.points;
        const r = yv.slice();
        for (let t = 0; t < nt; t++) {
          let re = 0,
            im = 0,
            wn = 0,
            rn = 0;
          for (let i = 0; i < nr; i++) {
            const wr = p.filters[2 * (t * nr + i)]!,
              wi = p.filters[2 * (t * nr + i) + 1]!;
            re += wr * r[2 * i]! - wi * r[2 * i + 1]!;
            im += wr * r[2 * i + 1]! + wi * r[2 * i]!;
            wn += wr * wr + wi * wi;
            rn += r[2 * i]! ** 2 + r[2 * i + 1]! ** 2;
          }
          const u = p.unbias[t]!,
            zr = re * u,
            zi = im * u;
          const s = sliceSymbol(zr, zi, con),
            k = p.order[t]!,
            g = gpu.symbols[v * nt + k]!;
          if (s !== out.symbols[k]) {
            bad(`vector ${v}: the float64 replay of sic differs from the CPU detector`);
            break;
          }
          if (g !== s) {
            const z = Math.hypot(zr, zi);
            const dist = g >= 0 && g < con.size ? boundaryDistance(zr, zi, s, g, con) : -1;
            // |a [Ginv]_kk u| <= |u| + 1 (mu = 1 - a [Ginv]_kk)
            const tol =
              C *
                EPS32 *
                cond.kappa *
                (Math.abs(u) * Math.sqrt(wn * (rn + yv.reduce((q, x) => q + x * x, 0))) + z * (Math.abs(u) + 1)) +
              C * EPS32 * z;
            if (!(dist >= 0 && dist <= tol))
              bad(
                `vector ${v} step ${t} (stream ${k}): GPU ${g}, CPU ${s}, distance to the boundary ${dist.toExponential(2)} > bound ${tol.toExponential(2)}`,
              );
            else {
              res.nearTies++;
              if (cond.kappa > ILL_CONDITIONED) res.nearTiesIllConditioned++;
              res.worstTie = Math.max(res.worstTie, dist / tol);
            }
            break;
          }
          for (let i = 0; i < nr; i++) {
            const hr = sub[2 * (i + k * nr)]!,
              hi = sub[2 * (i + k * nr) + 1]!,
              ar = pts[2 * s]!,
              ai = pts[2 * s + 1]!;
            r[2 * i] = r[2 * i]! - (hr * ar - hi * ai);
            r[2 * i + 1] = r[2 * i + 1]! - (hr * ai + hi * ar);
          }
        }
      }
    }
  }
  return res;
}

/** Symbols of detect() (the CPU engine itself) on clean vectors: an independent check that the per-vector replay above is the engine's answer. */
export function cpuEngineSymbols(c: LinearCase): Int32Array {
  return detect(
    { nr: c.nr, nt: c.nt, H: c.H, y: c.y, noiseVar: c.noise, vectorsPerChannel: c.vpc },
    { detector: c.kind, modulation: c.mod, engine: 'cpu' },
  ).symbols;
}
