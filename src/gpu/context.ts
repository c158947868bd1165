/**
 * The CUDA device and its primary context (cuDevicePrimaryCtxRetain + cuCtxSetCurrent): one per
 * process, made current on first use. `cudaAvailable()` probes without ever throwing.
 */
import { EngineUnavailableError } from '../core/index.js';
import { CU_DEVICE_ATTRIBUTE as A, check, getDriver, outHandle, type DriverApi } from './driver.js';

/** What the CUDA driver reports of a device, read once when its context opens. */
export interface DeviceProperties {
  /** Device index (0 for the device the engine uses). */
  ordinal: number;
  /** The device's name, e.g. 'NVIDIA H100 80GB HBM3'. */
  name: string;
  /** Compute capability, e.g. 9.0 as { major: 9, minor: 0 }. */
  major: number;
  /** See major. */
  minor: number;
  /** 'sm_90' for compute capability 9.0. */
  arch: string;
  /** Global memory in bytes. */
  totalMemBytes: number;
  /** Streaming multiprocessors. */
  multiprocessors: number;
  /** Most threads in one block. */
  maxThreadsPerBlock: number;
  /** Most resident threads on one multiprocessor. */
  maxThreadsPerMultiprocessor: number;
  /** Threads per warp. */
  warpSize: number;
  /** Shared memory a block gets without opting in. */
  sharedPerBlockBytes: number;
  /** The most dynamic shared memory a block can get after cuFuncSetAttribute raises its limit. */
  sharedPerBlockOptinBytes: number;
  /** Shared memory of one multiprocessor, shared by its resident blocks. */
  sharedPerMultiprocessorBytes: number;
  /** L2 cache in bytes. */
  l2CacheBytes: number;
  /** Peak SM clock in kHz. */
  clockKHz: number;
  /** Driver's CUDA version, e.g. 13000 for 13.0. */
  driverVersion: number;
}

/** The context this thread last made current (see makeCurrent). */
let currentContext: CudaContext | null = null;

export class CudaContext {
  private constructor(
    readonly driver: DriverApi,
    readonly device: number,
    readonly handle: bigint,
    readonly props: DeviceProperties,
  ) {}

  /**
   * Makes this context current on the calling thread, done before every batch of calls. The
   * driver call is made only when another context (or none) was made current here last: each
   * Node thread has its own module state, as each OS thread has its own current context, and
   * this package is the only one setting it.
   */
  makeCurrent(): void {
    if (currentContext === this) return;
    check(this.driver.cuCtxSetCurrent(this.handle), 'cuCtxSetCurrent');
    currentContext = this;
  }

  /** Waits for all work in the context to finish. */
  synchronize(): void {
    check(this.driver.cuCtxSynchronize(), 'cuCtxSynchronize');
  }

  /** Free and total device memory in bytes. */
  memInfo(): { freeBytes: number; totalBytes: number } {
    const free = [0],
      total = [0];
    check(this.driver.cuMemGetInfo(free, total), 'cuMemGetInfo');
    return { freeBytes: Number(free[0]), totalBytes: Number(total[0]) };
  }

  private static instances = new Map<number, CudaContext>();

  /** The primary context of device `ordinal` (0 by default), created once and kept. */
  static get(ordinal = 0): CudaContext {
    const have = CudaContext.instances.get(ordinal);
    if (have) {
      have.makeCurrent();
      return have;
    }
    const d = getDriver();
    check(d.cuInit(0), 'cuInit');
    const count = [0];
    check(d.cuDeviceGetCount(count), 'cuDeviceGetCount');
    if (count[0]! <= ordinal) {
      throw new EngineUnavailableError(`no CUDA device ${ordinal}: the driver reports ${count[0]} device(s)`);
    }
    const dev = [0];
    check(d.cuDeviceGet(dev, ordinal), 'cuDeviceGet');
    const device = dev[0]!;
    const ctxOut = [0];
    check(d.cuDevicePrimaryCtxRetain(ctxOut, device), 'cuDevicePrimaryCtxRetain');
    const handle = outHandle(ctxOut);
    check(d.cuCtxSetCurrent(handle), 'cuCtxSetCurrent');
    const ctx = new CudaContext(d, device, handle, readProperties(d, device, ordinal));
    CudaContext.instances.set(ordinal, ctx);
    return ctx;
  }
}

function readProperties(d: DriverApi, device: number, ordinal: number): DeviceProperties {
  const attr = (a: number): number => {
    const v = [0];
    check(d.cuDeviceGetAttribute(v, a, device), 'cuDeviceGetAttribute');
    return v[0]!;
  };
  const nameBuf = Buffer.alloc(256);
  check(d.cuDeviceGetName(nameBuf, nameBuf.length, device), 'cuDeviceGetName');
  const mem = [0];
  check(d.cuDeviceTotalMem(mem, device), 'cuDeviceTotalMem');
  const ver = [0];
  check(d.cuDriverGetVersion(ver), 'cuDriverGetVersion');
  const major = attr(A.COMPUTE_CAPABILITY_MAJOR),
    minor = attr(A.COMPUTE_CAPABILITY_MINOR);
  return {
    ordinal,
    name: nameBuf.toString('utf8').replace(/\0.*$/s, ''),
    major,
    minor,
    arch: `sm_${major}${minor}`,
    totalMemBytes: Number(mem[0]),
    multiprocessors: attr(A.MULTIPROCESSOR_COUNT),
    maxThreadsPerBlock: attr(A.MAX_THREADS_PER_BLOCK),
    maxThreadsPerMultiprocessor: attr(A.MAX_THREADS_PER_MULTIPROCESSOR),
    warpSize: attr(A.WARP_SIZE),
    sharedPerBlockBytes: attr(A.MAX_SHARED_MEMORY_PER_BLOCK),
    sharedPerBlockOptinBytes: attr(A.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
    sharedPerMultiprocessorBytes: attr(A.MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
    l2CacheBytes: attr(A.L2_CACHE_SIZE),
    clockKHz: attr(A.CLOCK_RATE),
    driverVersion: ver[0]!,
  };
}

/** Whether the CUDA engine can run: `{ok: true, device}` with its properties, or `{ok: false, reason}` saying why not (no driver, no device, ...). */
export type CudaAvailability = { ok: true; device: DeviceProperties } | { ok: false; reason: string };

let availability: CudaAvailability | undefined;

/**
 * Whether a CUDA device answers: loads libcuda, initialises it and opens device 0's primary
 * context. Never throws; the answer is computed once per process.
 */
export function cudaAvailable(): CudaAvailability {
  if (availability) return availability;
  try {
    availability = { ok: true, device: CudaContext.get(0).props };
  } catch (e) {
    availability = { ok: false, reason: (e as Error).message };
  }
  return availability;
}

/**
 * The context of device `ordinal` (default 0), or an EngineUnavailableError saying why there is
 * none (no CUDA engine, or no such device). A thread uses one device at a time: the runtime makes
 * a context current once, so a second device belongs in another thread.
 */
export function requireCuda(ordinal = 0): CudaContext {
  const a = cudaAvailable();
  if (!a.ok) throw new EngineUnavailableError(`the CUDA engine was asked for but is not available: ${a.reason}`);
  return CudaContext.get(ordinal);
}

/** CUDA devices the driver reports (0 where the CUDA engine is not available). */
export function cudaDeviceCount(): number {
  if (!cudaAvailable().ok) return 0;
  const count = [0];
  check(getDriver().cuDeviceGetCount(count), 'cuDeviceGetCount');
  return count[0]!;
}
