/**
 * A C++ reference runner built against IT++ (or another system library): its source found above
 * this module (src or dist tree) or named by an environment variable, compiled on demand with g++
 * and cached under os.tmpdir(), keyed by a hash of its source; or a prebuilt binary that an
 * environment variable names. A missing g++ or library, or a failed compile, is an ExternalToolError.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExternalToolError } from '../../src/core/errors.js';

export interface CppRunnerSpec {
  /** For messages: 'the IT++ harness'. */
  readonly what: string;
  /** The source, relative to the repository root. */
  readonly source: string;
  /** Folder under os.tmpdir() that holds the builds, one subfolder per source hash; the binary's name. */
  readonly cacheDir: string;
  readonly binaryName: string;
  /** g++'s link flags. */
  readonly libs: readonly string[];
  /** g++'s complaint when the library or its headers are missing, and the message that says so. */
  readonly missing: { readonly pattern: RegExp; readonly message: string };
  /** Environment variables naming the source, or a prebuilt binary, explicitly. */
  readonly sourceEnv?: string;
  readonly binaryEnv?: string;
}

export class CppRunner {
  private cached: string | undefined;

  constructor(readonly spec: CppRunnerSpec) {}

  /** The source: the environment's, or spec.source found above this module. */
  sourcePath(): string {
    const { sourceEnv, source } = this.spec;
    const env = sourceEnv ? process.env[sourceEnv] : undefined;
    if (env) {
      if (!existsSync(env)) throw new ExternalToolError(`${sourceEnv}=${env} does not exist`);
      return env;
    }
    const here = dirname(fileURLToPath(import.meta.url));
    let dir = here;
    for (let up = 0; up < 8; up++) {
      const candidate = join(dir, source);
      if (existsSync(candidate)) return candidate;
      const parent = resolve(dir, '..');
      if (parent === dir) break;
      dir = parent;
    }
    throw new ExternalToolError(`cannot find ${source} above ${here}${sourceEnv ? `; set ${sourceEnv}` : ''}`);
  }

  /** Path of the binary: the environment's prebuilt one, or the cached build (compiling it first). */
  binaryPath(timeoutMs = 180_000): string {
    const { binaryEnv, what, missing } = this.spec;
    const prebuilt = binaryEnv ? process.env[binaryEnv] : undefined;
    if (prebuilt) {
      if (!existsSync(prebuilt)) throw new ExternalToolError(`${binaryEnv}=${prebuilt} does not exist`);
      return prebuilt;
    }
    if (this.cached && existsSync(this.cached)) return this.cached;
    const src = this.sourcePath();
    const key = createHash('sha256').update(readFileSync(src)).digest('hex').slice(0, 16);
    const dir = join(tmpdir(), this.spec.cacheDir, key);
    const bin = join(dir, this.spec.binaryName);
    if (!existsSync(bin)) {
      mkdirSync(dir, { recursive: true });
      const tmp = `${bin}.${process.pid}.tmp`;
      const r = spawnSync('g++', ['-O2', '-std=c++17', '-o', tmp, src, ...this.spec.libs], {
        encoding: 'utf8',
        timeout: timeoutMs,
      });
      if (r.error) {
        const code = (r.error as NodeJS.ErrnoException).code;
        throw new ExternalToolError(
          code === 'ENOENT' ? `g++ not found (install g++ to build ${what})` : `g++ failed to run: ${r.error.message}`,
        );
      }
      if (r.status !== 0)
        throw new ExternalToolError(
          missing.pattern.test(r.stderr) ? missing.message : `compiling ${what} failed: ${r.stderr.slice(0, 2000)}`,
        );
      renameSync(tmp, bin);
    }
    this.cached = bin;
    return bin;
  }

  /** Whether the binary can be had here; the reason when not. */
  availability(): { ok: true } | { ok: false; reason: string } {
    try {
      this.binaryPath();
      return { ok: true };
    } catch (e) {
      if (e instanceof ExternalToolError) return { ok: false, reason: e.message };
      throw e;
    }
  }
}

/** IT++'s headers or library missing, as g++ reports it. */
export const ITPP_MISSING = {
  pattern: /itpp\/itcomm\.h|cannot find -litpp/,
  message: 'IT++ not found (install libitpp-dev: apt-get install -y libitpp-dev)',
} as const;
