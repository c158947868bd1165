/**
 * Bindings to the CUDA driver API (libcuda.so.1) through koffi.
 *
 * Conventions (what was seen working on the H100 machine with koffi 3):
 *  - handles (CUcontext, CUmodule, CUfunction, CUstream, CUevent) and device pointers travel as
 *    uint64_t; koffi returns them as Number or BigInt, so callers normalise with BigInt();
 *  - the versioned `_v2` symbols are bound where the header maps the plain name to them;
 *  - host pointers are `void *`: a typed array (passed in place, for synchronous calls only) or a
 *    BigInt address (pinned memory, for asynchronous ones).
 * Every call returns a CUresult; `check()` turns a failure into a CudaError with the error's name.
 */
import { existsSync } from 'node:fs';
import { koffi, type Koffi } from './native.js';
import { CudaError, EngineUnavailableError } from '../core/index.js';

// biome-ignore lint/suspicious/noExplicitAny: koffi binds C functions, whose arguments and results take any C type
type Fn = (...args: any[]) => any;

/** The driver functions this package uses. */
export interface DriverApi {
  cuInit: Fn;
  cuDriverGetVersion: Fn;
  cuDeviceGetCount: Fn;
  cuDeviceGet: Fn;
  cuDeviceGetName: Fn;
  cuDeviceGetAttribute: Fn;
  cuDeviceTotalMem: Fn;
  cuDevicePrimaryCtxRetain: Fn;
  cuDevicePrimaryCtxRelease: Fn;
  cuCtxSetCurrent: Fn;
  cuCtxSynchronize: Fn;
  cuMemGetInfo: Fn;
  cuMemAlloc: Fn;
  cuMemFree: Fn;
  cuMemAllocHost: Fn;
  cuMemFreeHost: Fn;
  cuMemcpyHtoD: Fn;
  cuMemcpyDtoH: Fn;
  cuMemcpyDtoD: Fn;
  cuMemcpyDtoDAsync: Fn;
  cuMemcpyHtoDAsync: Fn;
  cuMemcpyDtoHAsync: Fn;
  cuMemsetD8: Fn;
  cuMemsetD8Async: Fn;
  cuStreamCreate: Fn;
  cuStreamDestroy: Fn;
  cuStreamSynchronize: Fn;
  cuStreamQuery: Fn;
  cuEventCreate: Fn;
  cuEventDestroy: Fn;
  cuEventRecord: Fn;
  cuStreamWaitEvent: Fn;
  cuEventSynchronize: Fn;
  cuEventQuery: Fn;
  cuEventElapsedTime: Fn;
  cuModuleLoadData: Fn;
  cuModuleUnload: Fn;
  cuModuleGetFunction: Fn;
  cuLaunchKernel: Fn;
  cuLaunchCooperativeKernel: Fn;
  cuFuncSetAttribute: Fn;
  cuFuncGetAttribute: Fn;
  cuOccupancyMaxActiveBlocksPerMultiprocessor: Fn;
  cuGetErrorName: Fn;
  cuGetErrorString: Fn;
}

/** The CUresult values (cuda.h) the host code tests for by number. */
export const CU_RESULT = { SUCCESS: 0, ERROR_NOT_READY: 600 } as const;

/** CUdevice_attribute values (cuda.h). */
export const CU_DEVICE_ATTRIBUTE = {
  MAX_THREADS_PER_BLOCK: 1,
  MAX_SHARED_MEMORY_PER_BLOCK: 8,
  WARP_SIZE: 10,
  CLOCK_RATE: 13,
  MULTIPROCESSOR_COUNT: 16,
  MEMORY_CLOCK_RATE: 36,
  GLOBAL_MEMORY_BUS_WIDTH: 37,
  L2_CACHE_SIZE: 38,
  MAX_THREADS_PER_MULTIPROCESSOR: 39,
  COMPUTE_CAPABILITY_MAJOR: 75,
  COMPUTE_CAPABILITY_MINOR: 76,
  MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: 81,
  MAX_REGISTERS_PER_BLOCK: 12,
  MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: 97,
} as const;

/** CUfunction_attribute values (cuda.h). */
export const CU_FUNC_ATTRIBUTE = {
  MAX_THREADS_PER_BLOCK: 0,
  SHARED_SIZE_BYTES: 1,
  CONST_SIZE_BYTES: 2,
  LOCAL_SIZE_BYTES: 3,
  NUM_REGS: 4,
  MAX_DYNAMIC_SHARED_SIZE_BYTES: 8,
} as const;

const LIBCUDA_NAMES = [
  'libcuda.so.1',
  'libcuda.so',
  '/usr/local/nvidia/lib64/libcuda.so.1',
  '/usr/lib/x86_64-linux-gnu/libcuda.so.1',
];

/** Files an installed NVIDIA driver provides on Linux (native, in containers, and under WSL 2). */
const DRIVER_NODES = ['/dev/nvidiactl', '/proc/driver/nvidia/version', '/dev/dxg'];

/**
 * Why no CUDA driver can be there (null when one may be): on Linux without any of DRIVER_NODES,
 * the answer comes without loading the bindings' native addon. LATTICE_MIMO_LIBCUDA (a libcuda
 * path) skips the test, for drivers installed elsewhere.
 */
function driverAbsence(): string | null {
  if (process.platform === 'darwin') return 'CUDA has no driver for macOS';
  if (process.platform !== 'linux' || process.env.LATTICE_MIMO_LIBCUDA) return null;
  if (DRIVER_NODES.some((f) => existsSync(f))) return null;
  return `no NVIDIA driver installed (none of ${DRIVER_NODES.join(', ')} exists)`;
}

let driver: DriverApi | undefined;
let driverLoadError: string | undefined;

function loadFirst(names: readonly string[]): { lib: ReturnType<Koffi['load']>; name: string } {
  const errors: string[] = [];
  for (const name of names) {
    try {
      return { lib: koffi().load(name), name };
    } catch (e) {
      errors.push(`${name}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  // the first name is the one a working install has; the others only repeat 'not found'
  throw new Error(errors[0] ?? 'no library name to try');
}

function bind(lib: ReturnType<Koffi['load']>): DriverApi {
  const f = (proto: string): Fn => lib.func(proto);
  // optional: the _v2 of cuEventElapsedTime appeared in CUDA 12.8; older drivers have only the plain one
  let elapsed: Fn;
  try {
    elapsed = f('int cuEventElapsedTime_v2(_Out_ float *ms, uint64_t start, uint64_t end)');
  } catch {
    elapsed = f('int cuEventElapsedTime(_Out_ float *ms, uint64_t start, uint64_t end)');
  }
  return {
    cuInit: f('int cuInit(unsigned int flags)'),
    cuDriverGetVersion: f('int cuDriverGetVersion(_Out_ int *version)'),
    cuDeviceGetCount: f('int cuDeviceGetCount(_Out_ int *count)'),
    cuDeviceGet: f('int cuDeviceGet(_Out_ int *device, int ordinal)'),
    cuDeviceGetName: f('int cuDeviceGetName(_Out_ uint8_t *name, int len, int device)'),
    cuDeviceGetAttribute: f('int cuDeviceGetAttribute(_Out_ int *value, int attrib, int device)'),
    cuDeviceTotalMem: f('int cuDeviceTotalMem_v2(_Out_ uint64_t *bytes, int device)'),
    cuDevicePrimaryCtxRetain: f('int cuDevicePrimaryCtxRetain(_Out_ uint64_t *ctx, int device)'),
    cuDevicePrimaryCtxRelease: f('int cuDevicePrimaryCtxRelease_v2(int device)'),
    cuCtxSetCurrent: f('int cuCtxSetCurrent(uint64_t ctx)'),
    cuCtxSynchronize: f('int cuCtxSynchronize()'),
    cuMemGetInfo: f('int cuMemGetInfo_v2(_Out_ uint64_t *free, _Out_ uint64_t *total)'),
    cuMemAlloc: f('int cuMemAlloc_v2(_Out_ uint64_t *dptr, size_t bytes)'),
    cuMemFree: f('int cuMemFree_v2(uint64_t dptr)'),
    cuMemAllocHost: f('int cuMemAllocHost_v2(_Out_ uint64_t *pp, size_t bytes)'),
    cuMemFreeHost: f('int cuMemFreeHost(uint64_t p)'),
    cuMemcpyHtoD: f('int cuMemcpyHtoD_v2(uint64_t dst, void *src, size_t bytes)'),
    cuMemcpyDtoH: f('int cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t bytes)'),
    cuMemcpyDtoD: f('int cuMemcpyDtoD_v2(uint64_t dst, uint64_t src, size_t bytes)'),
    cuMemcpyDtoDAsync: f('int cuMemcpyDtoDAsync_v2(uint64_t dst, uint64_t src, size_t bytes, uint64_t stream)'),
    cuMemcpyHtoDAsync: f('int cuMemcpyHtoDAsync_v2(uint64_t dst, uint64_t src, size_t bytes, uint64_t stream)'),
    cuMemcpyDtoHAsync: f('int cuMemcpyDtoHAsync_v2(uint64_t dst, uint64_t src, size_t bytes, uint64_t stream)'),
    cuMemsetD8: f('int cuMemsetD8_v2(uint64_t dst, uint8_t value, size_t count)'),
    cuMemsetD8Async: f('int cuMemsetD8Async(uint64_t dst, uint8_t value, size_t count, uint64_t stream)'),
    cuStreamCreate: f('int cuStreamCreate(_Out_ uint64_t *stream, unsigned int flags)'),
    cuStreamDestroy: f('int cuStreamDestroy_v2(uint64_t stream)'),
    cuStreamSynchronize: f('int cuStreamSynchronize(uint64_t stream)'),
    cuStreamQuery: f('int cuStreamQuery(uint64_t stream)'),
    cuEventCreate: f('int cuEventCreate(_Out_ uint64_t *event, unsigned int flags)'),
    cuEventDestroy: f('int cuEventDestroy_v2(uint64_t event)'),
    cuEventRecord: f('int cuEventRecord(uint64_t event, uint64_t stream)'),
    cuStreamWaitEvent: f('int cuStreamWaitEvent(uint64_t stream, uint64_t event, unsigned int flags)'),
    cuEventSynchronize: f('int cuEventSynchronize(uint64_t event)'),
    cuEventQuery: f('int cuEventQuery(uint64_t event)'),
    cuEventElapsedTime: elapsed,
    cuModuleLoadData: f('int cuModuleLoadData(_Out_ uint64_t *module, void *image)'),
    cuModuleUnload: f('int cuModuleUnload(uint64_t module)'),
    cuModuleGetFunction: f('int cuModuleGetFunction(_Out_ uint64_t *fn, uint64_t module, const char *name)'),
    cuLaunchKernel: f(
      'int cuLaunchKernel(uint64_t fn, unsigned int gx, unsigned int gy, unsigned int gz, ' +
        'unsigned int bx, unsigned int by, unsigned int bz, unsigned int sharedBytes, uint64_t stream, void *params, void *extra)',
    ),
    // every block resident at once (the persistent kernels' grid barriers rely on it)
    cuLaunchCooperativeKernel: f(
      'int cuLaunchCooperativeKernel(uint64_t fn, unsigned int gx, unsigned int gy, unsigned int gz, ' +
        'unsigned int bx, unsigned int by, unsigned int bz, unsigned int sharedBytes, uint64_t stream, void *params)',
    ),
    cuFuncSetAttribute: f('int cuFuncSetAttribute(uint64_t fn, int attrib, int value)'),
    cuFuncGetAttribute: f('int cuFuncGetAttribute(_Out_ int *value, int attrib, uint64_t fn)'),
    cuOccupancyMaxActiveBlocksPerMultiprocessor: f(
      'int cuOccupancyMaxActiveBlocksPerMultiprocessor(_Out_ int *blocks, uint64_t fn, int blockSize, size_t dynamicSmem)',
    ),
    cuGetErrorName: f('int cuGetErrorName(int error, _Out_ const char **name)'),
    cuGetErrorString: f('int cuGetErrorString(int error, _Out_ const char **text)'),
  };
}

/** The bound driver; throws EngineUnavailableError when libcuda cannot be loaded. */
export function getDriver(): DriverApi {
  if (driver) return driver;
  if (driverLoadError !== undefined) throw new EngineUnavailableError(`CUDA driver not available: ${driverLoadError}`);
  const absent = driverAbsence();
  if (absent !== null) {
    driverLoadError = absent;
    throw new EngineUnavailableError(`CUDA driver not available: ${absent}`);
  }
  try {
    const own = process.env.LATTICE_MIMO_LIBCUDA;
    driver = bind(loadFirst(own ? [own, ...LIBCUDA_NAMES] : LIBCUDA_NAMES).lib);
    return driver;
  } catch (e) {
    driverLoadError = (e as Error).message;
    throw new EngineUnavailableError(`CUDA driver not available: ${driverLoadError}`);
  }
}

/** The CUDA error's name (CUDA_ERROR_OUT_OF_MEMORY) and description, or a numeric fallback. */
export function cudaErrorText(code: number): { name: string; text: string } {
  let name = `CUDA_ERROR_${code}`;
  let text = '';
  if (driver) {
    const n: (string | null)[] = [null];
    if (driver.cuGetErrorName(code, n) === CU_RESULT.SUCCESS && n[0]) name = n[0];
    const t: (string | null)[] = [null];
    if (driver.cuGetErrorString(code, t) === CU_RESULT.SUCCESS && t[0]) text = t[0];
  }
  return { name, text };
}

/** Throws a CudaError for a failed CUresult; `what` names the call in the message. */
export function check(result: number, what: string): void {
  if (result === CU_RESULT.SUCCESS) return;
  const { name, text } = cudaErrorText(result);
  const code = name === 'CUDA_ERROR_OUT_OF_MEMORY' ? 'OUT_OF_MEMORY' : 'CUDA_ERROR';
  throw new CudaError(code, name, `${what} failed: ${name}${text ? ` (${text})` : ''}`, { result });
}

/** Reads the one value of a one-element out-array as a BigInt (koffi returns Number or BigInt). */
export function outHandle(out: unknown[]): bigint {
  const v = out[0];
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(v);
  throw new CudaError('CUDA_ERROR', 'CUDA_ERROR_INVALID_HANDLE', `driver returned no handle (${String(v)})`);
}
