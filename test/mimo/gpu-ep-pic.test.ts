/**
 * ep and mmse-pic on the GPU against the CPU engine: the kernels (ep-detect.cu,
 * mmse-pic-detect.cu) run through the CUDA emulator here (g++ on the CPU, float32 arithmetic as on
 * the device) on fresh random Rayleigh cases normalized as the engine's normalize kernel leaves them,
 * with random a-priori LLRs for both (and without); and through detectAsync on a device where one
 * answers.
 * Decisions must equal the CPU engine's (float64) except at near-ties: a symbol may differ only in
 * bits whose CPU a-posteriori LLR is within TIE of 0; LLRs must agree within LLR_TOL (float32
 * against float64 through an nt x nt inversion, and for ep through its iterations).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { detect } from '../../src/mimo/detect.js';
import { detectAsync } from '../../src/mimo/detect-async.js';
import { epDefines, EP_KERNEL_URL } from '../../src/mimo/detectors/ep/cuda.js';
import { picDefines, PIC_KERNEL_URL } from '../../src/mimo/detectors/mmse-pic/cuda.js';
import { DETECTOR_REGISTRY } from '../../src/mimo/registry.js';
import { constellation } from '../../src/mimo/modulation.js';
import { MODULATIONS, type DetectOptions, type Modulation } from '../../src/mimo/types.js';
import { Philox } from '../../src/core/rng.js';
import { compileEmulated, runEmulated } from '../gpu/cuda-emulator.js';
import { makeLinearCase, type LinearCase } from './gpu-linear-check.js';
import { cutOutput, gpuTestEnv, stdinOf } from './gpu-test-env.js';

const env = gpuTestEnv();
const { skip, skipEmu, msg } = env;

/**
 * A bit may decide differently on the GPU only where the CPU's a-posteriori |LLR| is at most this:
 * mmse-pic 0.05; ep its LLR tolerance's absolute part (its float32 LLRs may be that far off, so a
 * bit that close to zero may go either way).
 */
export const TIE: Record<'ep' | 'mmse-pic', number> = { ep: 0.5, 'mmse-pic': 0.05 };
/**
 * LLR tolerance of the GPU against the CPU engine, |gpu - cpu| <= abs + rel |cpu|: mmse-pic (one
 * nt x nt inversion in float32) 0.02 + 0.2%; ep 0.5 + 5%, because its sites grow to precisions
 * near 1/epsilon as the marginals collapse, which makes H^T H + s2 diag(lambda) ill-conditioned in
 * float32 (seen: up to about 0.1 + 1% on 2x2 to 4x4 at 5 dB, 0.77 on an LLR of 14.9 with 4x4
 * 256-QAM at 20 dB).
 */
export const LLR_TOL: Record<'ep' | 'mmse-pic', { abs: number; rel: number }> = {
  ep: { abs: 0.5, rel: 5e-2 },
  'mmse-pic': { abs: 0.02, rel: 2e-3 },
};

const EMU_MAIN = String.raw`
int main() {
  int h[4];
  if (fread(h, 4, 4, stdin) != 4) return 1;
  const int vectors = h[0], vpc = h[1], channels = h[2], hasPrior = h[3];
  const int nt = NT_, nr = NR_, bps = BPS_;
  std::vector<float> H((size_t)channels * 2 * nr * nt), y((size_t)vectors * 2 * nr), noise(vectors), prior(hasPrior ? (size_t)vectors * nt * bps : 0);
  std::vector<int> st(2 * (size_t)vectors), sym((size_t)vectors * nt, -7);
  std::vector<float> llr((size_t)vectors * nt * bps, std::nanf(""));
  if (fread(H.data(), 4, H.size(), stdin) != H.size() || fread(y.data(), 4, y.size(), stdin) != y.size()
      || fread(noise.data(), 4, noise.size(), stdin) != noise.size() || fread(prior.data(), 4, prior.size(), stdin) != prior.size()
      || fread(st.data(), 4, st.size(), stdin) != st.size()) return 1;
  if (emu_launch((vectors + 63) / 64, dim3{64, 1, 1}, 0, [&] {
    KERNEL_CALL;
  })) return 2;
  fwrite(sym.data(), 4, sym.size(), stdout);
  fwrite(llr.data(), 4, llr.size(), stdout);
  fwrite(st.data(), 4, st.size(), stdout);
  return 0;
}
`;

type Kind = 'ep' | 'mmse-pic';

interface Run {
  symbols: Int32Array;
  llr: Float32Array;
  status: Int32Array;
}

function options(kind: Kind, mod: Modulation, extra: Partial<DetectOptions>): DetectOptions {
  return { detector: kind, modulation: mod, ...extra } as DetectOptions;
}

function runEmu(kind: Kind, c: LinearCase, opts: DetectOptions, prior: Float32Array | null): Run {
  const con = constellation(c.mod),
    bps = con.bitsPerSymbol;
  const setup = { nt: c.nt, nr: c.nr, constellation: con, opts, soft: opts.soft !== 'none' };
  const defs = kind === 'ep' ? epDefines(setup) : picDefines(setup);
  const call =
    kind === 'ep'
      ? 'ep_detect(H.data(), y.data(), noise.data(), hasPrior ? prior.data() : nullptr, sym.data(), llr.data(), st.data(), vectors, vpc, 1e30f)'
      : 'mmse_pic_detect(H.data(), y.data(), noise.data(), hasPrior ? prior.data() : nullptr, sym.data(), llr.data(), st.data(), vectors, vpc, 1e30f)';
  const defines = [
    ...Object.entries(defs).map(([k, v]) => `-D${k}=${v}`),
    `-DNT_=${c.nt}`,
    `-DNR_=${c.nr}`,
    `-DBPS_=${bps}`,
    `-DKERNEL_CALL=${call}`,
  ];
  const url = kind === 'ep' ? EP_KERNEL_URL : PIC_KERNEL_URL;
  const { exe, error } = compileEmulated(EMU_MAIN, fileURLToPath(url), defines);
  if (error) throw new Error(error);
  const vectors = c.channels * c.vpc;
  const head = Int32Array.of(vectors, c.vpc, c.channels, prior ? 1 : 0);
  const out = runEmulated(
    exe,
    stdinOf([
      head,
      Float32Array.from(c.H),
      Float32Array.from(c.y),
      Float32Array.from(c.noise),
      prior ?? new Float32Array(0),
      c.status,
    ]),
  );
  const [symbols, llr, status] = cutOutput(out, [
    ['i32', vectors * c.nt],
    ['f32', vectors * c.nt * bps],
    ['i32', 2 * vectors],
  ]);
  return { symbols, llr, status };
}

/** Random priors (float32 values): a stream's all 0 with probability 1/3, else N(0, 2^2). */
function priorsFor(rng: Philox, vectors: number, nt: number, bps: number): Float32Array {
  const p = new Float32Array(vectors * nt * bps);
  for (let s = 0; s < vectors * nt; s++) {
    if (rng.int(3) === 0) continue;
    for (let b = 0; b < bps; b++) p[s * bps + b] = 2 * rng.normal();
  }
  return p;
}

interface Check {
  vectors: number;
  ties: number;
  worstLlr: number;
}

/** Compares a GPU run with the CPU engine on the same (normalized) input; returns the near-ties and the worst LLR error in tolerance units. */
function compare(
  kind: Kind,
  c: LinearCase,
  opts: DetectOptions,
  prior: Float32Array | null,
  gpu: Run,
  what: string,
): Check {
  const con = constellation(c.mod),
    bps = con.bitsPerSymbol,
    nt = c.nt;
  const cpu = detect(
    {
      nt,
      nr: c.nr,
      H: c.H,
      y: c.y,
      noiseVar: c.noise,
      vectorsPerChannel: c.vpc,
      ...(prior ? { priorLlr: Float64Array.from(prior) } : {}),
    },
    { ...opts, engine: 'cpu' },
  );
  let ties = 0,
    worst = 0;
  const vectors = c.channels * c.vpc;
  for (let v = 0; v < vectors; v++) {
    assert.equal(gpu.status[2 * v], 0, msg(`${what}: vector ${v} flagged ${gpu.status[2 * v]}`));
    for (let j = 0; j < nt; j++) {
      const a = gpu.symbols[v * nt + j]!,
        b = cpu.symbols[v * nt + j]!;
      for (let bit = 0; bit < bps; bit++) {
        const i = (v * nt + j) * bps + bit;
        const post = cpu.llr![i]! + (prior ? prior[i]! : 0);
        if (con.bitTable[a * bps + bit] !== con.bitTable[b * bps + bit]) {
          assert.ok(
            Math.abs(post) <= TIE[kind],
            msg(`${what}: vector ${v} stream ${j} bit ${bit}: GPU ${a}, CPU ${b}, CPU a-posteriori LLR ${post}`),
          );
          ties++;
        }
      }
      if (a !== b) continue;
      for (let bit = 0; bit < bps; bit++) {
        const i = (v * nt + j) * bps + bit;
        const g = gpu.llr[i]!,
          w = cpu.llr![i]!;
        const err = Math.abs(g - w) / (LLR_TOL[kind].abs + LLR_TOL[kind].rel * Math.abs(w));
        worst = Math.max(worst, err);
        assert.ok(err <= 1, msg(`${what}: vector ${v} LLR ${j}.${bit}: GPU ${g}, CPU ${w}`));
      }
    }
  }
  return { vectors, ties, worstLlr: worst };
}

test('the registry names the CUDA implementations of ep and mmse-pic', async () => {
  for (const k of ['ep', 'mmse-pic'] as const) {
    const impl = await DETECTOR_REGISTRY[k].cuda!();
    assert.equal(impl.name, k);
    assert.equal(impl.soft, true);
  }
});

test('emulated ep-detect.cu and mmse-pic-detect.cu equal the CPU engine (decisions but near-ties; LLRs within tolerance): sizes x modulations x options', {
  skip: skipEmu,
  timeout: 600_000,
}, () => {
  const rng = new Philox(env.seed, 0x9e);
  const stats: string[] = [];
  for (const kind of ['ep', 'mmse-pic'] as Kind[]) {
    for (const [nt, nr] of [[2, 2], [4, 4], [3, 5], ...(kind === 'mmse-pic' ? [[4, 2] as [number, number]] : [])] as [
      number,
      number,
    ][]) {
      for (const mod of MODULATIONS) {
        const snr = [5, 12, 20][rng.int(3)]!;
        const c = makeLinearCase(randomInt(2 ** 30), 'mmse', nt, nr, mod, snr, 3, 8);
        const bps = constellation(mod).bitsPerSymbol;
        const extra: Partial<DetectOptions> =
          kind === 'ep'
            ? {
                iterations: 1 + rng.int(10),
                beta: [0.9, 0.5][rng.int(2)]!,
                soft: rng.int(4) === 0 ? 'logmap' : 'maxlog',
              }
            : { picIterations: 1 + rng.int(2), soft: rng.int(4) === 0 ? 'logmap' : 'maxlog' };
        const opts = options(kind, mod, extra);
        const prior = rng.int(4) !== 0 ? priorsFor(rng, 24, nt, bps) : null;
        const what = `${kind} ${nt}x${nr} ${mod} ${snr} dB ${JSON.stringify(extra)}${prior ? ' priors' : ''}`;
        const r = compare(kind, c, opts, prior, runEmu(kind, c, opts, prior), what);
        stats.push(`${what}: ${r.ties} near-ties, worst LLR ${r.worstLlr.toFixed(3)} of tolerance`);
      }
    }
  }
  console.log(stats.join('\n'));
});

test('GPU (device): detectAsync on ep and mmse-pic equals the CPU engine within the same tolerances', {
  skip,
}, async () => {
  const rng = new Philox(env.seed, 0x9f);
  for (const kind of ['ep', 'mmse-pic'] as Kind[]) {
    for (const mod of ['qpsk', '16qam', '64qam'] as Modulation[]) {
      const c = makeLinearCase(randomInt(2 ** 30), 'mmse', 8, 8, mod, 15, 64, 14);
      const bps = constellation(mod).bitsPerSymbol;
      const prior = priorsFor(rng, 64 * 14, 8, bps);
      const opts = options(kind, mod, {});
      const res = await detectAsync(
        {
          nt: 8,
          nr: 8,
          H: Float32Array.from(c.H),
          y: Float32Array.from(c.y),
          noiseVar: Float32Array.from(c.noise),
          vectorsPerChannel: 14,
          ...(prior ? { priorLlr: prior } : {}),
        },
        { ...opts, engine: 'cuda' },
      );
      const gpu: Run = { symbols: res.symbols, llr: res.llr as Float32Array, status: new Int32Array(2 * 64 * 14) };
      compare(kind, c, opts, prior, gpu, `device ${kind} 8x8 ${mod}`);
    }
  }
});
