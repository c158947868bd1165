/**
 * Compiled CUDA modules, cached twice: loaded modules in memory for the life of the process, and
 * compiled images on disk (keyed by a hash of source + options + architecture + NVRTC version) under
 * $LATTICE_MIMO_CACHE or os.tmpdir()/lattice-mimo-cubin/ ($LATTICE_MIMO_CACHE=off turns the disk
 * cache off). Kernels are specialised with -D defines (element type, sizes), so one .cu file gives
 * many modules.
 *
 * Code is compiled to CUBIN for the device's own architecture (sm_XY), so the driver's PTX version
 * does not matter; only when this NVRTC cannot target the device does it fall back to PTX for the
 * newest architecture it knows, which the driver then compiles.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError } from '../core/index.js';
import { check, outHandle } from './driver.js';
import { compile, nvrtcSupportedArchs, nvrtcVersion } from './nvrtc.js';
import { Kernel, type ParamType } from './launch.js';
import type { CudaContext } from './context.js';

export interface ModuleSpec {
  /** CUDA C++ source text (self-contained: no #include of CUDA headers). */
  source: string;
  /** A name for logs and error messages (the .cu file name). */
  name: string;
  /** -D defines, e.g. { REAL: 'double', MAX_N: 64 }. */
  defines?: Readonly<Record<string, string | number>>;
  /** Further NVRTC options, e.g. ['-fmad=false']. */
  options?: readonly string[];
}

export class CudaModule {
  private readonly kernels = new Map<string, Kernel>();
  constructor(
    readonly ctx: CudaContext,
    readonly handle: bigint,
    readonly key: string,
    /** Where the image came from: compiled now, the disk cache, or (for later calls) memory. */
    readonly origin: 'compiled' | 'disk',
    readonly compileLog: string,
  ) {}

  /** The kernel `name` (declared extern "C"), with its parameter types in signature order. */
  kernel(name: string, params: readonly ParamType[]): Kernel {
    const have = this.kernels.get(name);
    if (have) return have;
    const out = [0];
    check(this.ctx.driver.cuModuleGetFunction(out, this.handle, name), `cuModuleGetFunction(${name})`);
    const k = new Kernel(this.ctx, name, outHandle(out), params);
    this.kernels.set(name, k);
    return k;
  }
}

const loaded = new Map<string, CudaModule>();
const sourceCache = new Map<string, string>();
export const moduleCacheStats = { memoryHits: 0, diskHits: 0, compiles: 0, compileMs: 0 };

const QUOTED_INCLUDE = /^\s*#\s*include\s*"([^"]+)"\s*(?:\/\/.*)?$/;

/** A kernel file's text with its `#include "relative/path"` lines replaced by the files (each once). */
function inlineIncludes(path: string, seen: Set<string>): string {
  if (seen.has(path)) return '';
  seen.add(path);
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((line) => {
      const m = QUOTED_INCLUDE.exec(line);
      return m ? inlineIncludes(resolve(dirname(path), m[1]!), seen) : line;
    })
    .join('\n');
}

/**
 * The text of a kernel file shipped beside the compiled JS, e.g.
 * readKernelSource(new URL('./kernel.cu', import.meta.url)), with its quoted includes inlined
 * (NVRTC gets one self-contained source; nvcc and the emulator resolve the same includes themselves).
 */
export function readKernelSource(url: URL): string {
  const path = fileURLToPath(url);
  let text = sourceCache.get(path);
  if (text === undefined) {
    text = inlineIncludes(path, new Set());
    sourceCache.set(path, text);
  }
  return text;
}

function diskCacheDir(): string | null {
  const env = process.env.LATTICE_MIMO_CACHE;
  if (env === 'off' || env === '0') return null;
  return env && env.length > 0 ? env : join(tmpdir(), 'lattice-mimo-cubin');
}

/** The compile target for this device: its own sm_XY as CUBIN, else PTX for the newest arch NVRTC knows. */
function target(ctx: CudaContext): { archOption: string; kind: 'cubin' | 'ptx' } {
  const cc = ctx.props.major * 10 + ctx.props.minor;
  const archs = nvrtcSupportedArchs();
  if (archs.length === 0 || archs.includes(cc)) return { archOption: `--gpu-architecture=sm_${cc}`, kind: 'cubin' };
  const older = archs.filter((a) => a <= cc);
  const best = older.length > 0 ? Math.max(...older) : Math.min(...archs);
  return { archOption: `--gpu-architecture=compute_${best}`, kind: 'ptx' };
}

function defineOptions(defines: Readonly<Record<string, string | number>> | undefined): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(defines ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new InvalidArgumentError(`bad -D name '${k}'`);
    out.push(`-D${k}=${v}`);
  }
  return out;
}

/** Compiles (or finds in a cache) and loads a module for the context's device. */
export function loadModule(ctx: CudaContext, spec: ModuleSpec): CudaModule {
  const { archOption, kind } = target(ctx);
  const options = [archOption, '--std=c++17', ...defineOptions(spec.defines), ...(spec.options ?? [])];
  // a call per batch is common: find a loaded module by its source text (whose hash V8 keeps with
  // the string) and options before hashing the whole source for the cache key
  const optionKey = options.join('\0');
  const bySource = recent.get(ctx)?.get(spec.source)?.get(optionKey);
  if (bySource) {
    moduleCacheStats.memoryHits++;
    return bySource;
  }
  const v = nvrtcVersion();
  const key = createHash('sha256')
    .update(spec.source)
    .update('\0')
    .update(options.join('\0'))
    .update('\0')
    .update(`${ctx.props.arch}\0nvrtc-${v.major}.${v.minor}\0${kind}`)
    .digest('hex')
    .slice(0, 32);
  const have = loaded.get(key);
  if (have) {
    moduleCacheStats.memoryHits++;
    remember(ctx, spec.source, optionKey, have);
    return have;
  }
  const dir = diskCacheDir();
  const file = dir ? join(dir, `${key}.${kind}`) : null;
  let image: Uint8Array | null = null;
  let origin: 'compiled' | 'disk' = 'disk';
  let log = '';
  if (file) {
    try {
      image = new Uint8Array(readFileSync(file));
      moduleCacheStats.diskHits++;
    } catch {
      image = null;
    }
  }
  if (!image) {
    const t0 = performance.now();
    const res = compile(spec.source, spec.name, options, kind);
    moduleCacheStats.compiles++;
    moduleCacheStats.compileMs += performance.now() - t0;
    image = res.image;
    log = res.log;
    origin = 'compiled';
    if (dir && file) writeCacheFile(dir, file, image);
  }
  const out = [0];
  check(ctx.driver.cuModuleLoadData(out, image), `cuModuleLoadData(${spec.name})`);
  const mod = new CudaModule(ctx, outHandle(out), key, origin, log);
  loaded.set(key, mod);
  remember(ctx, spec.source, optionKey, mod);
  return mod;
}

/** Loaded modules by context, source text and options (the fast path of loadModule). */
const recent = new WeakMap<CudaContext, Map<string, Map<string, CudaModule>>>();

function remember(ctx: CudaContext, source: string, optionKey: string, mod: CudaModule): void {
  let bySource = recent.get(ctx);
  if (!bySource) recent.set(ctx, (bySource = new Map()));
  let byOptions = bySource.get(source);
  if (!byOptions) bySource.set(source, (byOptions = new Map()));
  byOptions.set(optionKey, mod);
}

/** Writes atomically (temp file + rename) so that a concurrent reader never sees half a file; errors are ignored. */
function writeCacheFile(dir: string, file: string, image: Uint8Array): void {
  try {
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(tmp, image);
    renameSync(tmp, file);
  } catch {
    // a read-only or full disk only costs a recompile next time
  }
}
