/**
 * A device buffer that grows to the largest size asked for: the intermediate arrays of the
 * frequency-selective models' CUDA generators (TDL's tap matrices, CDL's rays and slot matrices),
 * reused from call to call and released by the plan's free().
 */
import { type CudaContext, DeviceBuffer } from '../gpu/index.js';

export class DeviceScratch {
  private buf: DeviceBuffer | null = null;
  constructor(private readonly ctx: CudaContext) {}
  free(): void {
    this.buf?.free();
    this.buf = null;
  }
  /** The buffer's address, at least `bytes` long (a new buffer when the old one is shorter). */
  at(bytes: number): bigint {
    if (!this.buf || this.buf.bytes < bytes) {
      this.buf?.free();
      this.buf = DeviceBuffer.alloc(this.ctx, Math.max(bytes, 8));
    }
    return this.buf.ptr;
  }
}
