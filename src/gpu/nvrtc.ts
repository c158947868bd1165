/**
 * NVRTC (run-time compilation of CUDA C++) through koffi: source text in, CUBIN (machine code for
 * the device's own architecture, so the driver's PTX version does not matter) or PTX out.
 * A failed compile throws CudaError('NVRTC_ERROR') whose message carries the compiler's log.
 */
import { koffi, type Koffi } from './native.js';
import { CudaError, EngineUnavailableError } from '../core/index.js';

// biome-ignore lint/suspicious/noExplicitAny: koffi binds C functions, whose arguments and results take any C type
type Fn = (...args: any[]) => any;

interface NvrtcApi {
  nvrtcVersion: Fn;
  nvrtcGetNumSupportedArchs: Fn | undefined;
  nvrtcGetSupportedArchs: Fn | undefined;
  nvrtcCreateProgram: Fn;
  nvrtcDestroyProgram: Fn;
  nvrtcCompileProgram: Fn;
  nvrtcGetProgramLogSize: Fn;
  nvrtcGetProgramLog: Fn;
  nvrtcGetCUBINSize: Fn;
  nvrtcGetCUBIN: Fn;
  nvrtcGetPTXSize: Fn;
  nvrtcGetPTX: Fn;
  nvrtcGetErrorString: Fn;
}

/** Library names tried in order; $LATTICE_MIMO_NVRTC names an exact file first. */
function nvrtcCandidates(): string[] {
  const names: string[] = [];
  if (process.env.LATTICE_MIMO_NVRTC) names.push(process.env.LATTICE_MIMO_NVRTC);
  names.push('libnvrtc.so', 'libnvrtc.so.13', 'libnvrtc.so.12', 'libnvrtc.so.11.2');
  for (const home of [process.env.CUDA_HOME, process.env.CUDA_PATH, '/usr/local/cuda'].filter(Boolean) as string[]) {
    names.push(`${home}/lib64/libnvrtc.so`, `${home}/targets/x86_64-linux/lib/libnvrtc.so`);
  }
  return names;
}

let api: NvrtcApi | undefined;
let loadError: string | undefined;

function bind(lib: ReturnType<Koffi['load']>): NvrtcApi {
  const f = (proto: string): Fn => lib.func(proto);
  const opt = (proto: string): Fn | undefined => {
    try {
      return f(proto);
    } catch {
      return undefined;
    }
  };
  return {
    nvrtcVersion: f('int nvrtcVersion(_Out_ int *major, _Out_ int *minor)'),
    nvrtcGetNumSupportedArchs: opt('int nvrtcGetNumSupportedArchs(_Out_ int *count)'),
    nvrtcGetSupportedArchs: opt('int nvrtcGetSupportedArchs(_Out_ int *archs)'),
    nvrtcCreateProgram: f(
      'int nvrtcCreateProgram(_Out_ uint64_t *prog, const char *src, const char *name, int numHeaders, void *headers, void *includeNames)',
    ),
    nvrtcDestroyProgram: f('int nvrtcDestroyProgram(void *prog)'),
    nvrtcCompileProgram: f('int nvrtcCompileProgram(uint64_t prog, int numOptions, const char **options)'),
    nvrtcGetProgramLogSize: f('int nvrtcGetProgramLogSize(uint64_t prog, _Out_ size_t *size)'),
    nvrtcGetProgramLog: f('int nvrtcGetProgramLog(uint64_t prog, _Out_ uint8_t *log)'),
    nvrtcGetCUBINSize: f('int nvrtcGetCUBINSize(uint64_t prog, _Out_ size_t *size)'),
    nvrtcGetCUBIN: f('int nvrtcGetCUBIN(uint64_t prog, _Out_ uint8_t *cubin)'),
    nvrtcGetPTXSize: f('int nvrtcGetPTXSize(uint64_t prog, _Out_ size_t *size)'),
    nvrtcGetPTX: f('int nvrtcGetPTX(uint64_t prog, _Out_ uint8_t *ptx)'),
    nvrtcGetErrorString: f('const char *nvrtcGetErrorString(int result)'),
  };
}

function getNvrtc(): NvrtcApi {
  if (api) return api;
  if (loadError !== undefined) throw new EngineUnavailableError(`NVRTC not available: ${loadError}`);
  const errors: string[] = [];
  for (const name of nvrtcCandidates()) {
    try {
      api = bind(koffi().load(name));
      return api;
    } catch (e) {
      errors.push(`${name}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  loadError = errors.join('; ');
  throw new EngineUnavailableError(`NVRTC not available: ${loadError}`);
}

function nvrtcCheck(n: NvrtcApi, result: number, what: string, log?: string): void {
  if (result === 0) return;
  const name: string = n.nvrtcGetErrorString(result) ?? `NVRTC_ERROR_${result}`;
  const tail = log ? `\n${log.trim()}` : '';
  throw new CudaError('NVRTC_ERROR', name, `${what} failed: ${name}${tail}`, { result, log });
}

/** NVRTC's version, e.g. { major: 13, minor: 0 }. */
let version: { major: number; minor: number } | null = null;

export function nvrtcVersion(): { major: number; minor: number } {
  if (version) return version;
  const n = getNvrtc();
  const major = [0],
    minor = [0];
  nvrtcCheck(n, n.nvrtcVersion(major, minor), 'nvrtcVersion');
  version = { major: major[0]!, minor: minor[0]! };
  return version;
}

/** The virtual architectures (as 90 for sm_90) this NVRTC can compile for; [] when it cannot say. */
let archList: number[] | null = null;

export function nvrtcSupportedArchs(): number[] {
  if (archList) return [...archList];
  const n = getNvrtc();
  if (!n.nvrtcGetNumSupportedArchs || !n.nvrtcGetSupportedArchs) return [];
  const count = [0];
  if (n.nvrtcGetNumSupportedArchs(count) !== 0) return [];
  const archs = new Int32Array(count[0]!);
  if (n.nvrtcGetSupportedArchs(archs) !== 0) return [];
  archList = Array.from(archs);
  return [...archList];
}

export interface CompileResult {
  /** CUBIN bytes (kind 'cubin') or NUL-terminated PTX text (kind 'ptx'), ready for cuModuleLoadData. */
  image: Uint8Array;
  kind: 'cubin' | 'ptx';
  /** The compiler's log (warnings), possibly empty. */
  log: string;
}

/**
 * Compiles `source` with `options` (e.g. ['--gpu-architecture=sm_90', '-DREAL=double']).
 * `kind` 'cubin' asks for machine code, which needs a real architecture (sm_XY) in the options.
 */
export function compile(
  source: string,
  name: string,
  options: readonly string[],
  kind: 'cubin' | 'ptx',
): CompileResult {
  const n = getNvrtc();
  const progOut = [0];
  nvrtcCheck(n, n.nvrtcCreateProgram(progOut, source, name, 0, null, null), 'nvrtcCreateProgram');
  const prog = BigInt(progOut[0]!);
  try {
    const res: number = n.nvrtcCompileProgram(prog, options.length, [...options]);
    const log = readLog(n, prog);
    nvrtcCheck(n, res, `compiling ${name}`, log);
    const size = [0];
    if (kind === 'cubin') {
      nvrtcCheck(n, n.nvrtcGetCUBINSize(prog, size), 'nvrtcGetCUBINSize');
      const image = new Uint8Array(Number(size[0]));
      nvrtcCheck(n, n.nvrtcGetCUBIN(prog, image), 'nvrtcGetCUBIN');
      return { image, kind, log };
    }
    nvrtcCheck(n, n.nvrtcGetPTXSize(prog, size), 'nvrtcGetPTXSize');
    const image = new Uint8Array(Number(size[0]));
    nvrtcCheck(n, n.nvrtcGetPTX(prog, image), 'nvrtcGetPTX');
    return { image, kind, log };
  } finally {
    n.nvrtcDestroyProgram(new BigUint64Array([prog]));
  }
}

function readLog(n: NvrtcApi, prog: bigint): string {
  const size = [0];
  if (n.nvrtcGetProgramLogSize(prog, size) !== 0 || Number(size[0]) <= 1) return '';
  const buf = Buffer.alloc(Number(size[0]));
  if (n.nvrtcGetProgramLog(prog, buf) !== 0) return '';
  return buf.toString('utf8').replace(/\0+$/, '');
}
