/**
 * The CUDA engine's runtime: libcuda and NVRTC through koffi, the device's primary context,
 * device and pinned buffers, compiled-module cache, kernel launch, streams and events.
 */
export {
  cudaAvailable,
  cudaDeviceCount,
  requireCuda,
  CudaContext,
  type CudaAvailability,
  type DeviceProperties,
} from './context.js';
export { DeviceBuffer, PinnedBuffer } from './memory.js';
export { Kernel, type ParamType, type ParamValue, type LaunchConfig, type Dim3 } from './launch.js';
export { Stream, CudaEvent, timeOnStream, type TimingResult } from './stream.js';
export { loadModule, readKernelSource, moduleCacheStats, CudaModule, type ModuleSpec } from './module-cache.js';
export { compile as nvrtcCompile, nvrtcVersion, nvrtcSupportedArchs } from './nvrtc.js';
export { check as checkCuda } from './driver.js';
export { releaseCudaWorkspace } from './workspace.js';
export {
  runBatch,
  type BatchJob,
  type BatchRunStats,
  type ChunkBuffers,
  type DeviceRegion,
  type HostRecords,
} from './batch-runner.js';
export {
  BATCH_RUN_SCHEMA,
  MAX_PIPELINE_LANES,
  MAX_TUNED_CHUNKS,
  batchRunOption,
  checkBatchRunOptions,
  type BatchRunOptions,
} from './batch-options.js';
export {
  checkEngineRequest,
  chooseEngine,
  cpuOnlyEngine,
  ENGINE_REQUESTS,
  type EngineDecision,
  type EngineName,
  type EngineQuestion,
  type EngineRequest,
} from './engine.js';
export { allocPinned, pinnedAddress, releasePinnedPool } from './host-memory.js';

import { cudaAvailable } from './context.js';
import { nvrtcVersion } from './nvrtc.js';

const GiB = 1024 ** 3;

/**
 * Lines describing the CUDA engine for `lattice-mimo info`: device name, compute capability,
 * memory, multiprocessors, driver and NVRTC versions; or one line saying why there is none.
 */
export async function describeCuda(): Promise<string[]> {
  const a = cudaAvailable();
  if (!a.ok) return [`cuda: not available (${a.reason})`];
  const d = a.device;
  const lines = [
    `cuda: device ${d.ordinal}: ${d.name}`,
    `  compute capability ${d.major}.${d.minor} (${d.arch}), ${d.multiprocessors} multiprocessors, ${(d.clockKHz / 1e6).toFixed(2)} GHz`,
    `  memory ${(d.totalMemBytes / GiB).toFixed(1)} GiB, L2 ${(d.l2CacheBytes / 2 ** 20).toFixed(0)} MiB, shared memory ${d.sharedPerBlockOptinBytes / 1024} KiB per block (opt-in)`,
    `  driver: CUDA ${Math.floor(d.driverVersion / 1000)}.${(d.driverVersion % 1000) / 10}`,
  ];
  try {
    const v = nvrtcVersion();
    lines.push(`  nvrtc: ${v.major}.${v.minor}`);
  } catch (e) {
    lines.push(`  nvrtc: not available (${(e as Error).message})`);
  }
  return lines;
}

// What other parts of the package use (the package index, src/index.ts, picks what users see).
export { check } from './driver.js';
export { downloadFromAddress } from './memory.js';
