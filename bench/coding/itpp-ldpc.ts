/**
 * IT++'s LDPC decoder (Debian libitpp-dev, LDPC_Code::bp_decode: flooding sum-product in Dint1 = 12
 * fixed point) as an external reference, through the C++ runner bench/itpp/ldpc.cpp. The runner is
 * compiled on demand with g++ and cached under os.tmpdir(), keyed by a hash of its source; it gets the
 * exact parity check we decode (compressed rows), so both decoders work on one matrix.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExternalToolError, InvalidInputError } from '../../src/core/errors.js';
import type { BaseMatrix, SparseParityCheck } from '../../src/coding/types.js';
import { CppRunner, ITPP_MISSING } from '../reference/cpp-runner.js';

const RUNNER = new CppRunner({
  what: 'the IT++ LDPC runner',
  source: join('bench', 'itpp', 'ldpc.cpp'),
  cacheDir: 'lattice-mimo-itpp-ldpc',
  binaryName: 'itpp-ldpc',
  libs: ['-litpp'],
  missing: ITPP_MISSING,
});

/** Path of the compiled runner (compiling it first); ExternalToolError when g++ or IT++ is missing. */
export function itppLdpcBinary(timeoutMs = 180_000): string {
  return RUNNER.binaryPath(timeoutMs);
}

/** Whether the IT++ runner can be built here; the reason when not. */
export function itppLdpcAvailability(): { ok: true } | { ok: false; reason: string } {
  return RUNNER.availability();
}

/** IT++'s decisions on a batch of frames. */
export interface ItppLdpcResult {
  /** frames x n hard decisions (all code bits). */
  readonly bits: Uint8Array;
  /** Iterations run per frame. */
  readonly iterations: Int32Array;
  /** 1 where IT++ ended on a zero syndrome. */
  readonly ok: Uint8Array;
  /** Seconds inside bp_decode (the runner's own clock; input conversion excluded). */
  readonly seconds: number;
  /** Process CPU seconds inside bp_decode (less sensitive than wall time to a shared machine). */
  readonly cpuSeconds: number;
}

/** Decodes frames x H.n LLRs with IT++'s bp_decode, maxIterations each, stopping on a zero syndrome when earlyStop. */
export function itppLdpcDecode(
  H: SparseParityCheck,
  llr: ArrayLike<number>,
  frames: number,
  options: { maxIterations: number; earlyStop: boolean; timeoutMs?: number },
): ItppLdpcResult {
  if (llr.length !== frames * H.n)
    throw new InvalidInputError('SHAPE_MISMATCH', `${llr.length} LLRs is not ${frames} frames x n = ${H.n}`);
  const bin = itppLdpcBinary();
  const dir = mkdtempSync(join(tmpdir(), 'lm-itpp-ldpc-'));
  try {
    const head = new Int32Array([H.n, H.m, H.col.length, frames, options.maxIterations, options.earlyStop ? 1 : 0]);
    const body = Float64Array.from(llr);
    const input = Buffer.concat([
      Buffer.from('LMLDPC01', 'latin1'),
      Buffer.from(head.buffer),
      Buffer.from(H.rowStart.buffer, H.rowStart.byteOffset, H.rowStart.byteLength),
      Buffer.from(H.col.buffer, H.col.byteOffset, H.col.byteLength),
      Buffer.from(body.buffer),
    ]);
    const inPath = join(dir, 'in.bin'),
      outPath = join(dir, 'out.bin');
    writeFileSync(inPath, input);
    const r = spawnSync(bin, [inPath, outPath], {
      encoding: 'utf8',
      timeout: options.timeoutMs ?? 600_000,
      maxBuffer: 1 << 20,
    });
    if (r.error) throw new ExternalToolError(`the IT++ LDPC runner failed to run: ${r.error.message}`);
    if (r.status !== 0)
      throw new ExternalToolError(`the IT++ LDPC runner exited with ${r.status}: ${r.stderr.trim().slice(0, 500)}`);
    const info = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      frames: number;
      seconds: number;
      cpuSeconds: number;
    };
    const out = readFileSync(outPath);
    const nb = frames * H.n;
    if (out.length !== nb + 4 * frames)
      throw new ExternalToolError(`the IT++ LDPC runner wrote ${out.length} bytes, expected ${nb + 4 * frames}`);
    const bits = new Uint8Array(out.buffer.slice(out.byteOffset, out.byteOffset + nb));
    const signed = new Int32Array(out.buffer.slice(out.byteOffset + nb, out.byteOffset + nb + 4 * frames));
    return {
      bits,
      iterations: signed.map((v) => Math.abs(v)),
      ok: Uint8Array.from(signed, (v) => (v > 0 ? 1 : 0)),
      seconds: info.seconds,
      cpuSeconds: info.cpuSeconds,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Encodes frames x (cols - rows) z information bits with IT++'s BLDPC_Generator on IT++'s own
 * expansion (BLDPC_Parity) of the base matrix by z; returns frames x cols z codeword bits.
 */
export function itppQcEncode(
  base: BaseMatrix,
  z: number,
  info: Uint8Array,
  frames: number,
  timeoutMs = 120_000,
): Uint8Array {
  const k = (base.cols - base.rows) * z,
    n = base.cols * z;
  if (info.length !== frames * k)
    throw new InvalidInputError('SHAPE_MISMATCH', `${info.length} information bits is not ${frames} frames x k = ${k}`);
  const bin = itppLdpcBinary();
  const dir = mkdtempSync(join(tmpdir(), 'lm-itpp-ldpe-'));
  try {
    const head = new Int32Array([base.rows, base.cols, z, frames]);
    const shifts = Int32Array.from(base.shifts);
    const inPath = join(dir, 'in.bin'),
      outPath = join(dir, 'out.bin');
    writeFileSync(
      inPath,
      Buffer.concat([
        Buffer.from('LMLDPE01', 'latin1'),
        Buffer.from(head.buffer),
        Buffer.from(shifts.buffer),
        Buffer.from(info.buffer, info.byteOffset, info.byteLength),
      ]),
    );
    const r = spawnSync(bin, [inPath, outPath], { encoding: 'utf8', timeout: timeoutMs });
    if (r.error) throw new ExternalToolError(`the IT++ LDPC runner failed to run: ${r.error.message}`);
    if (r.status !== 0)
      throw new ExternalToolError(`the IT++ LDPC runner exited with ${r.status}: ${r.stderr.trim().slice(0, 500)}`);
    const out = readFileSync(outPath);
    if (out.length !== frames * n)
      throw new ExternalToolError(`the IT++ LDPC runner wrote ${out.length} bytes, expected ${frames * n}`);
    return new Uint8Array(out.buffer.slice(out.byteOffset, out.byteOffset + out.length));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
