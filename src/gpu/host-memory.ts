/**
 * Typed arrays on page-locked (pinned) host memory, handed to callers: the GPU copies straight to
 * and from them, so a batch filled in place needs no staging copy. The batch runner recognises
 * them (pinnedAddress) and copies a chunk's records directly from or into them.
 *
 * Pinned memory is a scarce resource (locked RAM), so each array's memory returns to a pool when
 * the garbage collector drops the array, and is reused by the next allocation of the same size
 * class; releasePinnedPool() frees what the pool holds.
 */
import { InvalidArgumentError } from '../core/index.js';
import type { CudaContext } from './context.js';
import { PinnedBuffer } from './memory.js';

type TypedCtor<T> = {
  new (buffer: ArrayBuffer, byteOffset: number, length: number): T;
  readonly BYTES_PER_ELEMENT: number;
};

/** The pinned block behind each ArrayBuffer handed out, to find a view's host address. */
const owners = new WeakMap<ArrayBuffer, PinnedBuffer>();
/** Free blocks by size class (bytes rounded up to a power of two, at least 64 KiB). */
const pool = new Map<number, PinnedBuffer[]>();
const returned = new FinalizationRegistry<PinnedBuffer>((block) => {
  const list = pool.get(block.bytes);
  if (list) list.push(block);
  else pool.set(block.bytes, [block]);
});

const MIN_CLASS = 1 << 16;
function sizeClass(bytes: number): number {
  let c = MIN_CLASS;
  while (c < bytes) c *= 2;
  return c;
}

/**
 * A typed array of `length` elements on pinned host memory (contents unspecified). The same
 * interface as `new Ctor(length)`; the GPU engine copies it without staging. Its memory goes back
 * to a pool when the array is garbage-collected.
 */
export function allocPinned<T extends ArrayBufferView>(ctx: CudaContext, Ctor: TypedCtor<T>, length: number): T {
  if (!Number.isSafeInteger(length) || length < 0)
    throw new InvalidArgumentError(`length must be a non-negative integer, got ${length}`);
  const bytes = sizeClass(length * Ctor.BYTES_PER_ELEMENT);
  const block = pool.get(bytes)?.pop() ?? PinnedBuffer.alloc(ctx, bytes);
  // a fresh ArrayBuffer over the block for each array, so that its collection returns the block
  const buffer = block.view();
  owners.set(buffer, block);
  returned.register(buffer, block);
  return new Ctor(buffer, 0, length);
}

/**
 * The host address of a typed array's first byte when it lies on pinned memory from allocPinned
 * (the runner copies it directly), else null (the runner stages it through its own pinned buffer).
 */
export function pinnedAddress(view: ArrayBufferView): bigint | null {
  const block = owners.get(view.buffer as ArrayBuffer);
  return block ? block.address(view.byteOffset) : null;
}

/** Frees the pinned blocks the pool holds (arrays still in use keep theirs). */
export function releasePinnedPool(): void {
  for (const list of pool.values()) for (const b of list) b.free();
  pool.clear();
}
