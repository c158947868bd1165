/**
 * Kernel launch through cuLaunchKernel. A Kernel knows its parameter types (declared once, in the
 * order of the CUDA signature); each launch writes the values into a native parameter block (one
 * 8-byte slot per parameter) and passes the array of pointers to those slots, which the driver
 * copies before cuLaunchKernel returns, so the block is reused by the next launch.
 */
import { koffi } from './native.js';
import { InvalidArgumentError, UnsupportedError } from '../core/index.js';
import { CU_FUNC_ATTRIBUTE, check } from './driver.js';
import type { CudaContext } from './context.js';
import type { DeviceBuffer } from './memory.js';
import type { Stream } from './stream.js';

/** Kernel parameter kinds: device pointer, 32-bit ints, float, double, 64-bit int. */
export type ParamType = 'ptr' | 'i32' | 'u32' | 'f32' | 'f64' | 'i64';
export type ParamValue = number | bigint | DeviceBuffer;
export type Dim3 = number | readonly [number, number?, number?];

export interface LaunchConfig {
  grid: Dim3;
  block: Dim3;
  /** Dynamic shared memory in bytes (beyond 48 KiB needs setMaxDynamicShared first). */
  sharedBytes?: number;
  stream?: Stream;
  /**
   * cuLaunchCooperativeKernel: every block is resident at once, or the launch fails
   * (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE); kernels with grid-wide barriers need it.
   */
  cooperative?: boolean;
}

const SLOT = 8;

function dims(d: Dim3, what: string): [number, number, number] {
  const [x, y = 1, z = 1] = typeof d === 'number' ? [d] : d;
  for (const v of [x, y, z]) {
    if (!Number.isInteger(v) || v < 1 || v > 0x7fffffff)
      throw new InvalidArgumentError(`${what} dimensions must be positive integers, got ${JSON.stringify(d)}`);
  }
  return [x, y, z];
}

const isDim = (d: Dim3): d is number => typeof d === 'number' && Number.isInteger(d) && d >= 1 && d <= 0x7fffffff;

function asPointer(v: ParamValue): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(v);
  return v.ptr;
}

export class Kernel {
  /** Native memory: slots for the values, then the array of pointers to the slots. */
  private readonly block: bigint;
  private readonly slots: DataView;
  /** Address of the array of pointers to the slots (cuLaunchKernel's kernelParams). */
  private readonly pointers: bigint;

  constructor(
    readonly ctx: CudaContext,
    readonly name: string,
    readonly handle: bigint,
    readonly params: readonly ParamType[],
  ) {
    const n = Math.max(params.length, 1);
    this.block = koffi().alloc('uint8_t', 2 * n * SLOT) as bigint;
    const view = koffi().view(this.block, 2 * n * SLOT);
    this.slots = new DataView(view, 0, n * SLOT);
    const pointers = new BigUint64Array(view, n * SLOT, n);
    for (let i = 0; i < n; i++) pointers[i] = this.block + BigInt(i * SLOT);
    this.pointers = this.block + BigInt(n * SLOT);
  }

  /** Enqueues one launch; arguments in the order of the kernel's signature. */
  launch(cfg: LaunchConfig, args: readonly ParamValue[]): void {
    if (args.length !== this.params.length) {
      throw new InvalidArgumentError(`kernel ${this.name} takes ${this.params.length} arguments, got ${args.length}`);
    }
    const s = this.slots;
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!;
      const o = i * SLOT;
      switch (this.params[i]!) {
        case 'ptr':
          s.setBigUint64(o, asPointer(v), true);
          break;
        case 'i64':
          s.setBigInt64(o, BigInt(v as number | bigint), true);
          break;
        case 'i32':
          s.setInt32(o, Number(v), true);
          break;
        case 'u32':
          s.setUint32(o, Number(v), true);
          break;
        case 'f32':
          s.setFloat32(o, Number(v), true);
          break;
        case 'f64':
          s.setFloat64(o, Number(v), true);
          break;
      }
    }
    // a one-dimensional grid and block (most launches) without the arrays of dims()
    const g = cfg.grid,
      b = cfg.block;
    const [gx, gy, gz] = isDim(g) ? [g, 1, 1] : dims(g, 'grid');
    const [bx, by, bz] = isDim(b) ? [b, 1, 1] : dims(b, 'block');
    const shared = cfg.sharedBytes ?? 0;
    const stream = cfg.stream?.handle ?? 0n;
    const d = this.ctx.driver;
    const r = cfg.cooperative
      ? d.cuLaunchCooperativeKernel(this.handle, gx, gy, gz, bx, by, bz, shared, stream, this.pointers)
      : d.cuLaunchKernel(this.handle, gx, gy, gz, bx, by, bz, shared, stream, this.pointers, null);
    if (r !== 0) check(r, `launching ${this.name}${cfg.cooperative ? ' (cooperative)' : ''}`);
  }

  /** Lets launches use up to `bytes` of dynamic shared memory (needed above 48 KiB). */
  setMaxDynamicShared(bytes: number): void {
    const limit = this.ctx.props.sharedPerBlockOptinBytes;
    if (bytes > limit) {
      throw new UnsupportedError(
        `kernel ${this.name} needs ${bytes} bytes of shared memory, the device allows ${limit} per block`,
      );
    }
    check(
      this.ctx.driver.cuFuncSetAttribute(this.handle, CU_FUNC_ATTRIBUTE.MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
      'cuFuncSetAttribute',
    );
  }

  /** Registers, static shared memory, local (spill) memory and the thread limit of the compiled kernel. */
  attributes(): { registers: number; staticSharedBytes: number; localBytes: number; maxThreadsPerBlock: number } {
    const get = (a: number): number => {
      const v = [0];
      check(this.ctx.driver.cuFuncGetAttribute(v, a, this.handle), 'cuFuncGetAttribute');
      return v[0]!;
    };
    return {
      registers: get(CU_FUNC_ATTRIBUTE.NUM_REGS),
      staticSharedBytes: get(CU_FUNC_ATTRIBUTE.SHARED_SIZE_BYTES),
      localBytes: get(CU_FUNC_ATTRIBUTE.LOCAL_SIZE_BYTES),
      maxThreadsPerBlock: get(CU_FUNC_ATTRIBUTE.MAX_THREADS_PER_BLOCK),
    };
  }

  /** Resident blocks per multiprocessor for a block size and dynamic shared memory. */
  occupancy(blockThreads: number, sharedBytes = 0): number {
    const v = [0];
    check(
      this.ctx.driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(v, this.handle, blockThreads, sharedBytes),
      'cuOccupancyMaxActiveBlocksPerMultiprocessor',
    );
    return v[0]!;
  }
}
