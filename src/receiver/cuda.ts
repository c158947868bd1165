/**
 * The slot receiver on the device: a launch of consecutive slots, the received grids already on
 * the device, goes through
 *   slot-gather.cu          the DM-RS symbols to the estimator, the data symbols to the detectors' vectors
 *   dmrsEstimationCudaPlan  (channels) every data vector's channel and noise variance from the DM-RS
 *   detectionCudaPlan       (mimo) normalize, then the detector's kernels: max-log LLRs
 *   slot-flags.cu           the vectors the detector left unanswered, listed for the host
 *   rateRecoveryCudaPlan    (coding) each block's E LLRs, descrambled, onto its mother code's columns
 *   ldpcCudaPlan            (coding) the layered decoder
 *   transportBlockCheckCudaPlan  (coding) CRC24B of each block, the transport block's CRC
 *   slot-pack.cu            the transport blocks' bits packed into bytes
 * and only the packed blocks, CRC flags, decoder status and the flagged vectors' count come back.
 * A launch with flagged vectors (rare: a channel the float32 kernels cannot carry) has them answered
 * by the detection plan's redo (its one fallback policy), their LLRs written back, and the stages
 * from rate recovery on run again before the results are read.
 */
import {
  type DmrsEstimationCudaPlan,
  dmrsEstimationCudaPlan,
  slotsPerFrame,
  SYMBOLS_PER_SLOT,
} from '../channels/index.js';
import {
  type LdpcCudaPlan,
  ldpcCudaPlan,
  type RateRecoveryCudaPlan,
  rateRecoveryCudaPlan,
  type TransportBlockCheckCudaPlan,
  transportBlockCheckCudaPlan,
} from '../coding/index.js';
import { InvalidArgumentError } from '../core/index.js';
import {
  type CudaContext,
  DeviceBuffer,
  type Kernel,
  loadModule,
  PinnedBuffer,
  readKernelSource,
  Stream,
} from '../gpu/index.js';
import { type DetectionCudaPlan, detectionCudaPlan, nodeBudgetError } from '../mimo/index.js';
import { checkSlots } from './cpu.js';
import type { ResolvedReceiver } from './options.js';
import type { ReceivedSlot, SlotResult } from './result.js';
import { scramblingSequence } from './scrambling.js';

const BLOCK = 256;
/** Flagged vectors a launch lists (more: the whole status is read back). */
const FLAG_CAP = 1024;

/** The stages of a launch in order, as enqueue() announces them to its `mark` callback. */
export const RECEIVER_STAGES = ['split', 'estimate', 'detect', 'recover', 'decode', 'check', 'copy'] as const;
/** A stage of a launch. */
export type ReceiverStage = (typeof RECEIVER_STAGES)[number];

/** A launch's device input. */
export interface SlotLaunch {
  /** maxSlots x 14 x K x nr complex float32 received grids (default: the plan's own grid buffer). */
  readonly grid?: bigint;
  /** Slots in the launch, 1 to the plan's maxSlots. */
  readonly slots: number;
  /** The first slot's number; slot s of the launch is slot number slot0 + s (its DM-RS: mod slotsPerFrame). */
  readonly slot0: number;
}

/** The receiver compiled for one configuration, with buffers for up to maxSlots slots a launch. */
export interface SlotReceiverCudaPlan {
  /** The configuration it receives. */
  readonly receiver: ResolvedReceiver;
  /** The most slots a launch holds. */
  readonly maxSlots: number;
  /** The plan's grid buffer: maxSlots x 14 x K x nr complex float32. */
  readonly grid: bigint;
  /**
   * Every device stage of a launch on `stream` (see the file comment); read its results with
   * results(). `mark`, when given, is called before each stage is enqueued (a caller may record an
   * event there to time the stages).
   */
  enqueue(stream: Stream, launch: SlotLaunch, mark?: (stage: ReceiverStage) => void): void;
  /** After enqueue(): waits for the stream, answers any flagged vectors, and gives each slot's result. */
  results(stream: Stream, launch: SlotLaunch): Promise<SlotResult[]>;
  /**
   * Host slots in, results out: uploads, enqueues and reads launches of consecutive slot numbers.
   * InvalidInputError / InvalidArgumentError naming the slot for a bad grid or slot number.
   */
  receive(slots: readonly ReceivedSlot[]): Promise<SlotResult[]>;
  /** Frees the plan's device and pinned memory (after its work is done). */
  free(): void;
}

/** The plan (see the file comment); typed errors from the parts' plans (a detector without CUDA soft output, a decoder setting the GPU lacks). */
export async function slotReceiverCudaPlan(
  ctx: CudaContext,
  r: ResolvedReceiver,
  maxSlots: number,
): Promise<SlotReceiverCudaPlan> {
  if (!Number.isInteger(maxSlots) || maxSlots < 1 || maxSlots > 1024)
    throw new InvalidArgumentError(`maxSlots must be an integer from 1 to 1024, got ${maxSlots}`, {
      option: 'maxSlots',
    });
  const { modulation: _m, ...detectorOptions } = r.detect;
  const detection = await detectionCudaPlan(ctx, {
    nt: r.config.layers,
    nr: r.options.nr,
    modulation: r.options.modulation,
    vectorsPerChannel: 1,
    options: detectorOptions,
    soft: true,
  });
  return new ReceiverPlan(ctx, r, maxSlots, detection);
}

class ReceiverPlan implements SlotReceiverCudaPlan {
  readonly grid: bigint;
  private readonly held: DeviceBuffer[] = [];
  private readonly pinned: PinnedBuffer[] = [];
  private readonly gather: Kernel;
  private readonly packK: Kernel;
  private readonly flagsK: Kernel;
  private readonly estimation: DmrsEstimationCudaPlan;
  private readonly recovery: RateRecoveryCudaPlan;
  private readonly decoder: LdpcCudaPlan;
  private readonly check: TransportBlockCheckCudaPlan;
  private readonly b: Record<
    | 'grid'
    | 'Yp'
    | 'y32'
    | 'H32'
    | 'noiseIn'
    | 'n0'
    | 'status'
    | 'symbols'
    | 'llr'
    | 'input'
    | 'bits'
    | 'dec'
    | 'blockOk'
    | 'tbOk'
    | 'checkScratch'
    | 'packed'
    | 'list'
    | 'scramble',
    DeviceBuffer
  >;
  private readonly scratch: bigint[];
  /** Host copies: packed TBs, then blockOk, tbOk, decoder status, the flag list's head. */
  private readonly out: PinnedBuffer;
  private readonly layout: { packed: number; blockOk: number; tbOk: number; dec: number; list: number };
  private readonly tbBytes: number;

  constructor(
    private readonly ctx: CudaContext,
    readonly receiver: ResolvedReceiver,
    readonly maxSlots: number,
    private readonly detection: DetectionCudaPlan,
  ) {
    const r = receiver,
      { config, K, C, E, G, code, dataRes } = r;
    const L = config.layers,
      nr = r.options.nr,
      D = config.symbols.length,
      S = maxSlots;
    const load = (file: string, name: string, params: Parameters<ReturnType<typeof loadModule>['kernel']>[1]) =>
      loadModule(ctx, {
        source: readKernelSource(new URL(`./gpu/${file}`, import.meta.url)),
        name: `receiver/gpu/${file}`,
        defines: { RX_BLOCK: BLOCK, NR: nr },
      }).kernel(name, params);
    this.gather = load('slot-gather.cu', 'slot_gather', ['ptr', 'ptr', 'ptr', 'i32', 'i32', 'i32', 'i32', 'i32']);
    this.packK = load('slot-pack.cu', 'slot_pack', ['ptr', 'ptr', 'i32', 'i32', 'i32', 'i32', 'i32']);
    this.flagsK = load('slot-flags.cu', 'slot_flags', ['ptr', 'ptr', 'i32', 'i32', 'i64']);
    const bg = code.nr!.bg as 1 | 2;
    this.tbBytes = Math.ceil(r.A / 8);
    const alloc = (bytes: number) => {
      const b = DeviceBuffer.alloc(ctx, Math.max(16, bytes));
      this.held.push(b);
      return b;
    };
    const frees: Array<{ free(): void }> = [];
    try {
      this.estimation = dmrsEstimationCudaPlan(ctx, {
        config,
        nr,
        csi: r.options.csi,
        ...(r.pdp ? { pdp: r.pdp } : {}),
        time: r.time,
        maxSlots: S,
      });
      frees.push(this.estimation);
      this.recovery = rateRecoveryCudaPlan(ctx, code, { perFrame: E });
      frees.push(this.recovery);
      this.decoder = ldpcCudaPlan(ctx, code, r.options.decoder, { input: 'float32' });
      this.check = transportBlockCheckCudaPlan(ctx, { bg, Kprime: code.k, C });
      frees.push(this.check);
      const vectors = S * dataRes,
        nFull = this.recovery.nFull;
      this.b = {
        grid: alloc(S * SYMBOLS_PER_SLOT * K * nr * 8),
        Yp: alloc(S * D * K * nr * 16),
        y32: alloc(vectors * nr * 8),
        H32: alloc(vectors * nr * L * 8),
        noiseIn: alloc(vectors * 4),
        n0: alloc(vectors * 4),
        status: alloc(vectors * detection.statusWords * 4),
        symbols: alloc(vectors * L * 4),
        llr: alloc(S * G * 4),
        input: alloc(S * C * nFull * 4),
        bits: alloc(S * C * code.k),
        dec: alloc(S * C * 4),
        blockOk: alloc(S * C),
        tbOk: alloc(S),
        checkScratch: alloc(this.check.scratchBytes(S)),
        packed: alloc(S * this.tbBytes),
        list: alloc((1 + 2 * FLAG_CAP) * 4),
        scramble: alloc(C * E),
      };
      this.b.scramble.upload(scramblingSequence(r));
      this.scratch = detection.scratchBytesPerChannel.map((bytes) => alloc(bytes * vectors).ptr);
      const at = (n: number) => (n + 7) & ~7;
      const packed = 0,
        blockOk = at(S * this.tbBytes),
        tbOk = at(blockOk + S * C),
        dec = at(tbOk + S),
        list = at(dec + 4 * S * C);
      this.layout = { packed, blockOk, tbOk, dec, list };
      this.out = PinnedBuffer.alloc(ctx, list + 4 * (1 + 2 * FLAG_CAP));
      this.pinned.push(this.out);
      this.grid = this.b.grid.ptr;
    } catch (e) {
      for (const f of frees) f.free();
      this.free();
      throw e;
    }
  }

  private grid1(n: number, stream: Stream) {
    return { grid: Math.max(1, Math.ceil(n / BLOCK)), block: BLOCK, stream };
  }

  private checkLaunch(l: SlotLaunch): void {
    if (!Number.isInteger(l.slots) || l.slots < 1 || l.slots > this.maxSlots)
      throw new InvalidArgumentError(`a launch holds 1 to ${this.maxSlots} slots, got ${l.slots}`, { option: 'slots' });
    if (!Number.isInteger(l.slot0) || l.slot0 < 0)
      throw new InvalidArgumentError(`slot0 must be a non-negative integer, got ${l.slot0}`, { option: 'slot0' });
  }

  enqueue(stream: Stream, l: SlotLaunch, mark?: (stage: ReceiverStage) => void): void {
    this.checkLaunch(l);
    mark?.('split');
    const r = this.receiver,
      { config, K, dataRes } = r,
      b = this.b;
    const nr = r.options.nr,
      S = l.slots,
      vectors = S * dataRes;
    const mask = config.symbols.reduce((m, s) => m | (1 << s), 0);
    this.gather.launch(this.grid1(S * SYMBOLS_PER_SLOT * K * nr, stream), [
      l.grid ?? this.grid,
      b.Yp.ptr,
      b.y32.ptr,
      S,
      K,
      mask,
      config.symbols.length,
      dataRes,
    ]);
    mark?.('estimate');
    this.estimation.enqueue(stream, {
      Yp: b.Yp.ptr,
      H32: b.H32.ptr,
      noiseIn: b.noiseIn.ptr,
      slots: S,
      slot0: l.slot0,
      vectorsPerSlot: dataRes,
      vectors,
      n0: r.options.n0,
    });
    mark?.('detect');
    b.status.fillRange(0, vectors * this.detection.statusWords * 4, 0, stream);
    this.detection.enqueueNormalize(
      stream,
      { H: b.H32.ptr, y: b.y32.ptr, noiseIn: b.noiseIn.ptr, noiseScalar: 1, noiseOut: b.n0.ptr, status: b.status.ptr },
      vectors,
    );
    this.detection.enqueue(stream, {
      channels: vectors,
      vectorsPerChannel: 1,
      H: b.H32.ptr,
      y: b.y32.ptr,
      noise: b.n0.ptr,
      symbols: b.symbols.ptr,
      llr: b.llr.ptr,
      status: b.status.ptr,
      scratch: this.scratch,
    });
    b.list.fillRange(0, 4, 0, stream);
    this.flagsK.launch(this.grid1(vectors, stream), [
      b.status.ptr,
      b.list.ptr,
      FLAG_CAP,
      this.detection.reportFlags,
      vectors,
    ]);
    this.enqueueDecode(stream, S, mark);
    b.list.downloadAsync(this.out, stream, 4, 0, this.layout.list);
  }

  /** Rate recovery to the host copies (the stages a redo runs again). */
  private enqueueDecode(stream: Stream, S: number, mark?: (stage: ReceiverStage) => void): void {
    const r = this.receiver,
      { C, G, code } = r,
      b = this.b,
      o = this.layout;
    mark?.('recover');
    // block c of slot s: the slot's channel bits c E .. (c + 1) E - 1, descrambled on the way
    this.recovery.enqueue(stream, {
      llr: b.llr.ptr,
      input: b.input.ptr,
      frames: S * C,
      signs: b.scramble.ptr,
      groups: { groupFrames: C, groupStride: G },
    });
    mark?.('decode');
    this.decoder.enqueue(stream, { llr: b.input.ptr, bits: b.bits.ptr, status: b.dec.ptr, frames: S * C });
    mark?.('check');
    this.check.enqueue(stream, {
      bits: b.bits.ptr,
      tbs: S,
      blockOk: b.blockOk.ptr,
      tbOk: b.tbOk.ptr,
      scratch: b.checkScratch.ptr,
    });
    const P = C > 1 ? code.k - 24 : code.k;
    mark?.('copy');
    this.packK.launch(this.grid1(S * this.tbBytes, stream), [b.bits.ptr, b.packed.ptr, S, C, code.k, P, r.A]);
    b.packed.downloadAsync(this.out, stream, S * this.tbBytes, 0, o.packed);
    b.blockOk.downloadAsync(this.out, stream, S * C, 0, o.blockOk);
    b.tbOk.downloadAsync(this.out, stream, S, 0, o.tbOk);
    b.dec.downloadAsync(this.out, stream, 4 * S * C, 0, o.dec);
  }

  async results(stream: Stream, l: SlotLaunch): Promise<SlotResult[]> {
    await stream.wait();
    const r = this.receiver,
      { C } = r,
      o = this.layout;
    const count = this.out.i32(o.list, 1)[0]!;
    if (count > 0) {
      await this.redo(stream, l, count);
      await stream.wait();
    }
    const packed = this.out.u8(o.packed, l.slots * this.tbBytes),
      blockOk = this.out.u8(o.blockOk, l.slots * C),
      tbOk = this.out.u8(o.tbOk, l.slots),
      dec = this.out.i32(o.dec, l.slots * C);
    const out: SlotResult[] = [];
    for (let s = 0; s < l.slots; s++) {
      const tb = new Uint8Array(r.A);
      for (let t = 0; t < r.A; t++) tb[t] = (packed[s * this.tbBytes + (t >> 3)]! >> (7 - (t & 7))) & 1;
      const iterations = new Int32Array(C);
      for (let c = 0; c < C; c++) iterations[c] = dec[s * C + c]! & 0xffff;
      out.push({
        tb,
        tbCrcOk: tbOk[s] === 1,
        blockCrcOk: Array.from(blockOk.subarray(s * C, (s + 1) * C), (v) => v === 1),
        iterations,
        engine: 'cuda',
      });
    }
    return out;
  }

  /** Answers the flagged vectors (the detection plan's redo), writes their LLRs back, decodes again. */
  private async redo(stream: Stream, l: SlotLaunch, count: number): Promise<void> {
    const r = this.receiver,
      b = this.b,
      L = r.config.layers,
      nr = r.options.nr,
      vectors = l.slots * r.dataRes;
    let list: Array<[number, number]> = [];
    if (count <= FLAG_CAP) {
      const head = new Int32Array(1 + 2 * count);
      b.list.download(head);
      for (let i = 0; i < count; i++) list.push([head[1 + 2 * i]!, head[2 + 2 * i]!]);
    } else {
      const status = new Int32Array(vectors * this.detection.statusWords);
      b.status.download(status);
      for (let v = 0; v < vectors; v++) {
        const f = status[v * this.detection.statusWords]!;
        if (f & this.detection.reportFlags) list.push([v, f]);
      }
    }
    list.sort((a, c) => a[0] - c[0]);
    const budget = list.find(([, f]) => (f & this.detection.unanswered) === 0);
    if (budget && this.detection.onBudget === 'error')
      throw nodeBudgetError(this.detection.maxNodes, { detector: r.detect.detector, vector: budget[0] });
    list = list.filter(([, f]) => (f & this.detection.unanswered) !== 0);
    if (list.length === 0) return;
    // the flagged vectors' inputs as the device has them (before normalization: H32, y32, noiseIn)
    const H32 = new Float32Array(vectors * nr * L * 2),
      y32 = new Float32Array(vectors * nr * 2),
      n0 = new Float32Array(vectors);
    b.H32.download(H32);
    b.y32.download(y32);
    b.noiseIn.download(n0);
    const n = list.length,
      H = new Float64Array(n * nr * L * 2),
      y = new Float64Array(n * nr * 2),
      noiseVar = new Float64Array(n),
      flags = new Int32Array(n);
    list.forEach(([v, f], i) => {
      H.set(H32.subarray(v * nr * L * 2, (v + 1) * nr * L * 2), i * nr * L * 2);
      y.set(y32.subarray(v * nr * 2, (v + 1) * nr * 2), i * nr * 2);
      noiseVar[i] = n0[v]!;
      flags[i] = f;
    });
    const answers = await this.detection.redo({ H, y, noiseVar, flags });
    const per = L * r.qm;
    const llr = new Float32Array(vectors * per);
    b.llr.download(llr);
    list.forEach(([v], i) => {
      llr.set(answers.llr!.subarray(i * per, (i + 1) * per), v * per);
    });
    b.llr.upload(llr);
    this.enqueueDecode(stream, l.slots);
  }

  async receive(slots: readonly ReceivedSlot[]): Promise<SlotResult[]> {
    const r = this.receiver;
    checkSlots(r, slots);
    const per = SYMBOLS_PER_SLOT * r.K * r.options.nr * 2;
    const frame = slotsPerFrame(r.config.scs);
    const stream = Stream.create(this.ctx);
    const host = PinnedBuffer.alloc(this.ctx, this.maxSlots * per * 4);
    try {
      const out: SlotResult[] = [];
      for (let i = 0; i < slots.length; ) {
        // a launch: consecutive slot numbers (mod the frame), up to maxSlots
        let n = 1;
        while (i + n < slots.length && n < this.maxSlots && slots[i + n]!.slot % frame === (slots[i]!.slot + n) % frame)
          n++;
        const f = host.f32(0, n * per);
        for (let s = 0; s < n; s++) f.set(slots[i + s]!.grid, s * per);
        this.b.grid.uploadAsync(host, stream, n * per * 4);
        const launch = { slots: n, slot0: slots[i]!.slot };
        this.enqueue(stream, launch);
        out.push(...(await this.results(stream, launch)));
        i += n;
      }
      return out;
    } finally {
      host.free();
      stream.destroy();
    }
  }

  free(): void {
    this.estimation?.free();
    this.recovery?.free();
    this.check?.free();
    for (const b of this.held.splice(0)) b.free();
    for (const p of this.pinned.splice(0)) p.free();
  }
}
