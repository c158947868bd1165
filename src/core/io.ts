/**
 * File and stream I/O of the commands: output paths checked before any work starts, files written
 * atomically (a temporary file in the same directory, then rename, so a failed write never leaves a
 * half file or clobbers the old one), `-` for stdin / stdout, and Node's system errors (ENOSPC,
 * EACCES, ...) turned into one-line IoErrors.
 */
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants,
  fsyncSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { open, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { IoError, LatticeMimoError } from './errors.js';

/** A Node system error (it carries an errno code such as 'ENOSPC'). */
export function isSystemError(err: unknown): err is NodeJS.ErrnoException {
  return (
    err instanceof Error &&
    typeof (err as NodeJS.ErrnoException).code === 'string' &&
    /^E[A-Z0-9]+$/.test((err as NodeJS.ErrnoException).code!)
  );
}

/** `err` as a typed error: LatticeMimoErrors pass through, system errors become IoError('cannot <what>: ...'). */
export function toIoError(err: unknown, what: string): unknown {
  if (err instanceof LatticeMimoError || !isSystemError(err)) return err;
  return new IoError(`cannot ${what}: ${err.message}`, { errno: err.code });
}

/**
 * Checks that `file` (the value of --`option`) can be written: its directory exists and is
 * writable, and the path is not a directory. '-' (stdout) always passes. Throws IoError.
 */
export function checkOutputPath(option: string, file: string): void {
  if (file === '-') return;
  if (file === '') throw new IoError(`--${option}: empty file name`);
  if (isSpecialFile(file)) return; // /dev/null, /dev/stdout, a FIFO: written as they are
  const dir = dirname(resolve(file));
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(dir);
  } catch {
    throw new IoError(`--${option} ${file}: directory ${dir} does not exist`);
  }
  if (!st.isDirectory()) throw new IoError(`--${option} ${file}: ${dir} is not a directory`);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new IoError(`--${option} ${file}: directory ${dir} is not writable`);
  }
  try {
    if (statSync(file).isDirectory()) throw new IoError(`--${option} ${file} is a directory`);
  } catch (err) {
    if (err instanceof IoError) throw err;
    // absent: it will be created
  }
}

/** True when `file` exists and is not a regular file or directory (a device, a FIFO, a socket). */
export function isSpecialFile(file: string): boolean {
  try {
    const st = statSync(file);
    return !st.isFile() && !st.isDirectory();
  } catch {
    return false;
  }
}

/**
 * Writes `data` to `file` atomically: into a temporary file beside it, flushed to disk, then renamed
 * over `file`. On any failure the temporary file is removed, `file` keeps its old content, and an
 * IoError names the file. A device or FIFO (/dev/null, /dev/stdout) is written in place, never replaced.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  if (isSpecialFile(file)) {
    try {
      await writeFile(file, data);
    } catch (err) {
      throw toIoError(err, `write ${file}`);
    }
    return;
  }
  const tmp = tempBeside(file);
  let created = false;
  try {
    const fh = await open(tmp, 'wx', 0o644);
    created = true;
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
    created = false;
  } catch (err) {
    if (created) await unlink(tmp).catch(() => {});
    throw toIoError(err, `write ${file}`);
  }
}

/** A fresh temporary file name in `file`'s directory (a rename there is atomic). */
function tempBeside(file: string): string {
  return join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/**
 * writeFileAtomic for callers inside synchronous work (a checkpoint written from a reduction's
 * progress callback): the same temporary file, flush and rename, blocking; regular files only.
 */
export function writeFileAtomicSync(file: string, data: string | Uint8Array): void {
  // a device or FIFO would block the work (nobody reading) or interleave with other output
  if (isSpecialFile(file)) throw new IoError(`${file} is not a regular file (a synchronous atomic write needs one)`);
  const tmp = tempBeside(file);
  let created = false;
  try {
    const fd = openSync(tmp, 'wx', 0o644);
    created = true;
    try {
      writeFileSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
    created = false;
  } catch (err) {
    if (created) {
      try {
        unlinkSync(tmp);
      } catch {
        /* already gone */
      }
    }
    throw toIoError(err, `write ${file}`);
  }
}

/** Writes text to `file`, or to stdout when `file` is '-'. */
export async function writeOutput(file: string, text: string): Promise<void> {
  if (file === '-') {
    process.stdout.write(text);
    return;
  }
  await writeFileAtomic(file, text);
}

/** The text of `file`, or of stdin when `file` is '-' or undefined. Throws IoError. */
export async function readInput(file: string | undefined, noInputHint: string): Promise<string> {
  if (file !== undefined && file !== '-') {
    try {
      return await readFile(file, 'utf8');
    } catch (err) {
      throw toIoError(err, `read ${file}`);
    }
  }
  if (process.stdin.isTTY) throw new IoError(`no input: ${noInputHint}`);
  try {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  } catch (err) {
    throw toIoError(err, 'read stdin');
  }
}
