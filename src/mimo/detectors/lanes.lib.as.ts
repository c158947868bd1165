/**
 * The detection kernels' f64x2 addressing (imported by *.as.ts kernels; no module of its own): an
 * array of pairs (16 bytes an entry, lane 0 and lane 1), two values loaded into the lanes, two
 * preparations' entries by how they lie, and a masked swap of lanes.
 */

/** Entry i of a pair-interleaved array (16 bytes an entry). */
@inline
export function at(base: usize, i: i32): usize {
  return base + ((<usize>i) << 4);
}

/** Two values at a (lane 0) and b (lane 1). */
@inline
export function pair(a: usize, b: usize): v128 {
  return f64x2.replace_lane(f64x2.splat(load<f64>(a)), 1, load<f64>(b));
}

/** lanes()'s modes: one preparation (one load, splat), the two of a pair in their order (one vector load), any two. */
export const SAME = 0,
  PAIR = 1,
  ANY = 2;

/** Two preparations' entries at ea (lane 0) and eb (lane 1), loaded as `mode` says they lie. */
@inline
export function lanes(ea: usize, eb: usize, mode: i32): v128 {
  return mode == SAME ? v128.load64_splat(ea) : mode == PAIR ? v128.load(ea) : pair(ea, eb);
}

/** Swaps the lane of `mask` between the `len` vectors at a and at b. */
@inline
export function swapLane(a: usize, b: usize, len: i32, mask: v128): void {
  for (let r = 0; r < len; r++) {
    const pa = a + ((<usize>r) << 4),
      pb = b + ((<usize>r) << 4);
    const x = v128.load(pa),
      y = v128.load(pb);
    v128.store(pa, v128.bitselect(y, x, mask));
    v128.store(pb, v128.bitselect(x, y, mask));
  }
}
