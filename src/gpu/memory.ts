/**
 * Device memory (cuMemAlloc) and pinned host memory (cuMemAllocHost), with synchronous and
 * asynchronous copies between them.
 *
 * Asynchronous copies read or write host memory after the call returns, so their host side must
 * be a PinnedBuffer (memory the JS garbage collector cannot move or free), never a JS typed array.
 * Synchronous copies may use any typed array.
 */
import { koffi } from './native.js';
import { InvalidArgumentError } from '../core/index.js';
import { check, outHandle } from './driver.js';
import type { CudaContext } from './context.js';
import type { Stream } from './stream.js';

type HostArray = ArrayBufferView;

function checkBytes(bytes: number): void {
  if (!Number.isSafeInteger(bytes) || bytes < 0)
    throw new InvalidArgumentError(`buffer size must be a non-negative integer, got ${bytes}`);
}

function checkRange(offset: number, bytes: number, size: number, what: string): void {
  if (
    !Number.isSafeInteger(offset) ||
    offset < 0 ||
    !Number.isSafeInteger(bytes) ||
    bytes < 0 ||
    offset + bytes > size
  ) {
    throw new InvalidArgumentError(
      `${what}: range [${offset}, ${offset + bytes}) is outside the buffer of ${size} bytes`,
    );
  }
}

/** A block of device memory. */
/**
 * Waits for the legacy default stream. The driver's "synchronous" cuMemsetD8 on device memory and
 * cuMemcpyHtoD from pageable memory may return before the device has done them, ordered only
 * against the legacy stream; our streams are non-blocking, so a kernel enqueued next on one of
 * them could run first. upload() and fill() without a stream wait here, so they are what they say.
 */
function finishLegacyStream(ctx: CudaContext): void {
  check(ctx.driver.cuStreamSynchronize(0n), 'cuStreamSynchronize (legacy stream)');
}

/**
 * Synchronous copy of `dst.byteLength` bytes from a device address (a part of a buffer that the
 * caller holds only as an address, such as a batch runner's chunk region) into a host array.
 */
export function downloadFromAddress(ctx: CudaContext, address: bigint, dst: HostArray): void {
  if (dst.byteLength === 0) return;
  check(ctx.driver.cuMemcpyDtoH(dst, address, dst.byteLength), 'cuMemcpyDtoH');
}

export class DeviceBuffer {
  private freed = false;
  private constructor(
    readonly ctx: CudaContext,
    readonly ptr: bigint,
    readonly bytes: number,
  ) {}

  static alloc(ctx: CudaContext, bytes: number): DeviceBuffer {
    checkBytes(bytes);
    const out = [0];
    check(ctx.driver.cuMemAlloc(out, Math.max(bytes, 16)), `cuMemAlloc(${bytes} bytes)`);
    return new DeviceBuffer(ctx, outHandle(out), bytes);
  }

  /** Address `byteOffset` bytes into the buffer (for kernel arguments and copies into a part). */
  at(byteOffset: number): bigint {
    checkRange(byteOffset, 0, this.bytes, 'DeviceBuffer.at');
    return this.ptr + BigInt(byteOffset);
  }

  /** Synchronous copy from a host array into the buffer at `dstOffset` bytes (done on the device when it returns). */
  upload(src: HostArray, dstOffset = 0): void {
    this.live();
    checkRange(dstOffset, src.byteLength, this.bytes, 'upload');
    if (src.byteLength === 0) return;
    check(this.ctx.driver.cuMemcpyHtoD(this.ptr + BigInt(dstOffset), src, src.byteLength), 'cuMemcpyHtoD');
    finishLegacyStream(this.ctx);
  }

  /** Synchronous copy of `dst.byteLength` bytes from the buffer at `srcOffset` into a host array. */
  download(dst: HostArray, srcOffset = 0): void {
    this.live();
    checkRange(srcOffset, dst.byteLength, this.bytes, 'download');
    if (dst.byteLength === 0) return;
    check(this.ctx.driver.cuMemcpyDtoH(dst, this.ptr + BigInt(srcOffset), dst.byteLength), 'cuMemcpyDtoH');
  }

  /** Asynchronous copy on `stream` from pinned host memory into the buffer. */
  uploadAsync(src: PinnedBuffer, stream: Stream, bytes = src.bytes, srcOffset = 0, dstOffset = 0): void {
    this.live();
    checkRange(srcOffset, bytes, src.bytes, 'uploadAsync (source)');
    checkRange(dstOffset, bytes, this.bytes, 'uploadAsync (destination)');
    if (bytes === 0) return;
    check(
      this.ctx.driver.cuMemcpyHtoDAsync(this.ptr + BigInt(dstOffset), src.address(srcOffset), bytes, stream.handle),
      'cuMemcpyHtoDAsync',
    );
  }

  /** Asynchronous copy on `stream` from the buffer into pinned host memory. */
  downloadAsync(dst: PinnedBuffer, stream: Stream, bytes = dst.bytes, srcOffset = 0, dstOffset = 0): void {
    this.live();
    checkRange(srcOffset, bytes, this.bytes, 'downloadAsync (source)');
    checkRange(dstOffset, bytes, dst.bytes, 'downloadAsync (destination)');
    if (bytes === 0) return;
    check(
      this.ctx.driver.cuMemcpyDtoHAsync(dst.address(dstOffset), this.ptr + BigInt(srcOffset), bytes, stream.handle),
      'cuMemcpyDtoHAsync',
    );
  }

  /**
   * Asynchronous copy on `stream` of `bytes` bytes from a pinned host address (host-memory.ts:
   * pinnedAddress) into the buffer at `dstOffset`.
   */
  uploadFromAsync(hostAddress: bigint, stream: Stream, bytes: number, dstOffset = 0): void {
    this.live();
    checkRange(dstOffset, bytes, this.bytes, 'uploadFromAsync (destination)');
    if (bytes === 0) return;
    check(
      this.ctx.driver.cuMemcpyHtoDAsync(this.ptr + BigInt(dstOffset), hostAddress, bytes, stream.handle),
      'cuMemcpyHtoDAsync',
    );
  }

  /** Asynchronous copy on `stream` of `bytes` bytes from the buffer at `srcOffset` to a pinned host address. */
  downloadToAsync(hostAddress: bigint, stream: Stream, bytes: number, srcOffset = 0): void {
    this.live();
    checkRange(srcOffset, bytes, this.bytes, 'downloadToAsync (source)');
    if (bytes === 0) return;
    check(
      this.ctx.driver.cuMemcpyDtoHAsync(hostAddress, this.ptr + BigInt(srcOffset), bytes, stream.handle),
      'cuMemcpyDtoHAsync',
    );
  }

  /** Asynchronous copy on `stream` of `bytes` bytes from another device buffer. */
  copyFromAsync(src: DeviceBuffer, stream: Stream, bytes = src.bytes, srcOffset = 0, dstOffset = 0): void {
    this.live();
    checkRange(srcOffset, bytes, src.bytes, 'copyFromAsync (source)');
    checkRange(dstOffset, bytes, this.bytes, 'copyFromAsync (destination)');
    if (bytes === 0) return;
    check(
      this.ctx.driver.cuMemcpyDtoDAsync(
        this.ptr + BigInt(dstOffset),
        src.ptr + BigInt(srcOffset),
        bytes,
        stream.handle,
      ),
      'cuMemcpyDtoDAsync',
    );
  }

  /** Sets `bytes` bytes from `offset` to `value`, asynchronously on `stream`. */
  fillRange(offset: number, bytes: number, value: number, stream: Stream): void {
    this.live();
    checkRange(offset, bytes, this.bytes, 'fillRange');
    if (bytes === 0) return;
    check(
      this.ctx.driver.cuMemsetD8Async(this.ptr + BigInt(offset), value & 0xff, bytes, stream.handle),
      'cuMemsetD8Async',
    );
  }

  /** Sets every byte to `value` (to poison outputs before a kernel writes them): on `stream`, or done before it returns. */
  fill(value: number, stream?: Stream): void {
    this.live();
    if (stream)
      check(this.ctx.driver.cuMemsetD8Async(this.ptr, value & 0xff, this.bytes, stream.handle), 'cuMemsetD8Async');
    else {
      check(this.ctx.driver.cuMemsetD8(this.ptr, value & 0xff, this.bytes), 'cuMemsetD8');
      finishLegacyStream(this.ctx);
    }
  }

  free(): void {
    if (this.freed) return;
    this.freed = true;
    check(this.ctx.driver.cuMemFree(this.ptr), 'cuMemFree');
  }

  private live(): void {
    if (this.freed) throw new InvalidArgumentError('device buffer used after free()');
  }
}

/**
 * Page-locked host memory: the GPU copies to and from it asynchronously. Typed views over it
 * (f64(), f32(), ...) are valid until free().
 */
export class PinnedBuffer {
  private freed = false;
  readonly buffer: ArrayBuffer;
  private constructor(
    readonly ctx: CudaContext,
    readonly ptr: bigint,
    readonly bytes: number,
  ) {
    this.buffer = bytes > 0 ? koffi().view(ptr, bytes) : new ArrayBuffer(0);
  }

  static alloc(ctx: CudaContext, bytes: number): PinnedBuffer {
    checkBytes(bytes);
    const out = [0];
    check(ctx.driver.cuMemAllocHost(out, Math.max(bytes, 16)), `cuMemAllocHost(${bytes} bytes)`);
    return new PinnedBuffer(ctx, outHandle(out), bytes);
  }

  /** A new ArrayBuffer over the whole block (valid until free()). */
  view(): ArrayBuffer {
    this.live();
    return this.bytes > 0 ? koffi().view(this.ptr, this.bytes) : new ArrayBuffer(0);
  }

  address(byteOffset = 0): bigint {
    this.live();
    return this.ptr + BigInt(byteOffset);
  }

  f64(byteOffset = 0, length = (this.bytes - byteOffset) >> 3): Float64Array {
    this.live();
    return new Float64Array(this.buffer, byteOffset, length);
  }

  f32(byteOffset = 0, length = (this.bytes - byteOffset) >> 2): Float32Array {
    this.live();
    return new Float32Array(this.buffer, byteOffset, length);
  }

  i32(byteOffset = 0, length = (this.bytes - byteOffset) >> 2): Int32Array {
    this.live();
    return new Int32Array(this.buffer, byteOffset, length);
  }

  u8(byteOffset = 0, length = this.bytes - byteOffset): Uint8Array {
    this.live();
    return new Uint8Array(this.buffer, byteOffset, length);
  }

  free(): void {
    if (this.freed) return;
    this.freed = true;
    check(this.ctx.driver.cuMemFreeHost(this.ptr), 'cuMemFreeHost');
  }

  private live(): void {
    if (this.freed) throw new InvalidArgumentError('pinned buffer used after free()');
  }
}
