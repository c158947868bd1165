/**
 * The one place that loads koffi, the native addon behind the CUDA bindings, and only when a GPU
 * call asks for it: importing any module of the package loads no native code, so the CPU engine
 * (and worker threads started and ended by the hundred) never maps `koffi.node`.
 */
import { createRequire } from 'node:module';
import type koffiModule from 'koffi';

/** The koffi module's type (its default export). */
export type Koffi = typeof koffiModule;

let loaded: Koffi | undefined;

/** koffi, loaded on first call (throws what Node's loader throws when the addon is missing). */
export function koffi(): Koffi {
  loaded ??= createRequire(import.meta.url)('koffi') as Koffi;
  return loaded;
}

/** Whether koffi has been loaded in this thread (tests of the CPU path read it). */
export function koffiLoaded(): boolean {
  return loaded !== undefined;
}
