/** The device properties launch plans read, of an H100 (sm_90), for plans and emulated kernels without a device. */
import type { DeviceProperties } from '../../src/gpu/context.js';

/** An H100 as the launch plans see it; `overrides` change single properties (a lower shared-memory limit forces other layouts). */
export function emulatedH100(overrides: Partial<DeviceProperties> = {}): DeviceProperties {
  return {
    ordinal: 0,
    name: 'emulated H100',
    major: 9,
    minor: 0,
    arch: 'sm_90',
    totalMemBytes: 80e9,
    multiprocessors: 132,
    maxThreadsPerBlock: 1024,
    maxThreadsPerMultiprocessor: 2048,
    warpSize: 32,
    sharedPerBlockBytes: 49152,
    sharedPerBlockOptinBytes: 232448,
    sharedPerMultiprocessorBytes: 233472,
    l2CacheBytes: 50 << 20,
    clockKHz: 1980000,
    driverVersion: 13000,
    ...overrides,
  };
}
