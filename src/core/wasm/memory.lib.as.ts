/**
 * AssemblyScript helpers the kernels share (imported by *.as.ts kernels; scripts/build-wasm.mjs
 * builds no module of its own from a *.lib.as.ts file): float64 and int32 entries at a byte offset
 * plus an index, and JavaScript's Math.round.
 */

/** The float64 at p + 8 i. */
@inline
export function F(p: usize, i: i32): f64 {
  return load<f64>(p + ((<usize>i) << 3));
}
@inline
export function setF(p: usize, i: i32, v: f64): void {
  store<f64>(p + ((<usize>i) << 3), v);
}
/** The int32 at p + 4 i. */
@inline
export function I(p: usize, i: i32): i32 {
  return load<i32>(p + ((<usize>i) << 2));
}
@inline
export function setI(p: usize, i: i32, v: i32): void {
  store<i32>(p + ((<usize>i) << 2), v);
}

/** JavaScript's Math.round: the nearest integer, halves up (floor(u + 0.5) is wrong just below 0.5). */
@inline
export function jsRound(u: f64): f64 {
  const r = Math.floor(u);
  return u - r >= 0.5 ? r + 1 : r;
}
