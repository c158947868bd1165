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
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readlinkSync,
  type Stats,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { open, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { InvalidArgumentError, IoError, LatticeMimoError } from './errors.js';

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
 * The descriptor a descriptor's path names (/dev/stdout: 1, /dev/fd/3: 3, /proc/self/fd/2: 2), or
 * null. Such a path is written through the descriptor itself: opening it fails where the
 * descriptor is a socket (ENXIO), as stdout is under many process managers.
 */
export function descriptorOf(file: string): number | null {
  const p = resolve(file);
  if (p === '/dev/stdout') return 1;
  if (p === '/dev/stderr') return 2;
  const m = /^\/dev\/fd\/(\d+)$|^\/proc\/(?:self|thread-self|(\d+))\/fd\/(\d+)$/.exec(p);
  if (!m) return null;
  if (m[2] !== undefined && Number(m[2]) !== process.pid) return null;
  return Number(m[1] ?? m[3]);
}

/**
 * Whether `file` is written in place rather than replaced atomically: a device, a FIFO or a socket
 * (/dev/null, /dev/tty, a named pipe), or a descriptor's path (/dev/stdout).
 */
export function writesInPlace(file: string): boolean {
  return descriptorOf(file) !== null || isSpecialFile(file);
}

/**
 * The file a write to `file` lands in: symbolic links followed (a link to a results file is written
 * through, not replaced by a file), the directories' links resolved; an absent file keeps its name.
 */
export function finalPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    // absent, or a link to an absent file: follow the links as the kernel would (at most 40)
  }
  let p = resolve(file);
  for (let hops = 0; hops < 40; hops++) {
    let link: string;
    try {
      if (!lstatSync(p).isSymbolicLink()) break;
      link = readlinkSync(p);
    } catch {
      break;
    }
    p = resolve(dirname(p), link);
  }
  try {
    return join(realpathSync(dirname(p)), basename(p));
  } catch {
    return p;
  }
}

/**
 * Checks that `file` (the value of --`option`) can be written, before any work: it does not end in
 * '/', is not a directory, is not read-only (no write permission for this user, or none for anyone:
 * chmod a-w protects a file even from root here), and its directory exists and takes a new file (a
 * file is created there and removed: /proc, a read-only mount and an unwritable directory fail
 * now, not after the run). '-' (stdout) always passes; devices, FIFOs and /dev/stdout are checked
 * for write permission only (they are written in place). Throws IoError naming the option.
 */
export function checkOutputPath(option: string, file: string): void {
  if (file === '-') return;
  const fail = (why: string, errno?: string): IoError =>
    new IoError(`--${option} ${file}: ${why}`, { option: `--${option}`, file, ...(errno ? { errno } : {}) });
  if (file === '') throw new IoError(`--${option}: empty file name`, { option: `--${option}`, file });
  if (file.endsWith('/')) throw fail("ends in '/': a directory, not a file");
  const fd = descriptorOf(file);
  if (fd !== null) {
    try {
      fstatSync(fd);
    } catch {
      throw fail(`descriptor ${fd} is not open`);
    }
    return;
  }
  if (writesInPlace(file)) {
    try {
      accessSync(file, constants.W_OK);
    } catch (err) {
      throw fail(`cannot be written (${(err as NodeJS.ErrnoException).code ?? 'no permission'})`);
    }
    return;
  }
  const target = finalPath(file);
  const via = target === resolve(file) ? '' : ` (${target})`;
  let st: Stats | null = null;
  try {
    st = statSync(target);
  } catch {
    // absent: it will be created
  }
  if (st?.isDirectory()) throw fail(`is a directory${via}`);
  if (st) {
    let writable = (st.mode & 0o222) !== 0;
    try {
      accessSync(target, constants.W_OK);
    } catch {
      writable = false;
    }
    if (!writable) throw fail(`is read-only${via}: the run would fail at its end (or replace a protected file)`);
  }
  const dir = dirname(target);
  let dst: Stats;
  try {
    dst = statSync(dir);
  } catch {
    throw fail(`directory ${dir} does not exist`);
  }
  if (!dst.isDirectory()) throw fail(`${dir} is not a directory`);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw fail(`directory ${dir} is not writable`);
  }
  // the write's own first step, tried now: a file created beside the target, then removed
  const probe = tempBeside(target);
  try {
    closeSync(openSync(probe, 'wx', 0o600));
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw fail(`no file can be created in ${dir} (${e.code ?? e.message})`, e.code);
  }
  try {
    unlinkSync(probe);
  } catch {
    /* gone already */
  }
}

/** An output of a command: the option that names it (its long name) and the file ('-': stdout). */
export interface OutputTarget {
  option: string;
  file: string;
}

/** What an output is, as far as two outputs may not share it: stdout, a device and inode, a path. */
function outputKeys(file: string): string[] {
  const keys: string[] = [];
  const nullDevice = (st: Stats) => {
    try {
      const n = statSync('/dev/null');
      return st.isCharacterDevice() && st.rdev === n.rdev;
    } catch {
      return false;
    }
  };
  const fd = file === '-' ? 1 : descriptorOf(file);
  if (fd !== null) {
    if (fd === 1) keys.push('stdout');
    try {
      const st = fstatSync(fd);
      if (!nullDevice(st)) keys.push(`${st.dev}:${st.ino}`);
    } catch {
      /* not open */
    }
    return keys;
  }
  try {
    const st = statSync(file);
    // /dev/null takes any number of outputs
    if (nullDevice(st)) return keys;
    keys.push(`${st.dev}:${st.ino}`);
  } catch {
    keys.push(`path:${finalPath(file)}`);
  }
  return keys;
}

/**
 * Refuses two outputs in one place, before any work: stdout twice ('-', /dev/stdout), one file by
 * two spellings (`a`, `./a`, a link to it, a hard link), or an output that is the file stdout is
 * redirected to while stdout carries a result. /dev/null takes any number. InvalidArgumentError.
 * An option '' stands for the command's own output on stdout.
 */
export function checkDistinctOutputs(outputs: readonly OutputTarget[]): void {
  const seen: (OutputTarget & { keys: string[] })[] = [];
  const name = (o: OutputTarget) => (o.option === '' ? 'stdout (the result)' : `--${o.option} ${o.file}`);
  for (const o of outputs) {
    const keys = outputKeys(o.file);
    const prev = seen.find((s) => s.keys.some((k) => keys.includes(k)));
    if (prev) {
      const stdout = keys.includes('stdout') && prev.keys.includes('stdout');
      throw new InvalidArgumentError(
        `${name(prev)} and ${name(o)} are the same ${stdout ? 'stream, stdout' : 'file'}: each output needs a place of its own (one would overwrite or interleave with the other)`,
        { options: [prev.option, o.option].map((x) => (x === '' ? 'stdout' : `--${x}`)), files: [prev.file, o.file] },
      );
    }
    seen.push({ ...o, keys });
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
 * IoError names the file. A descriptor's path (/dev/stdout, /dev/fd/3) is written through the
 * descriptor, and a device or FIFO (/dev/null, a named pipe) in place: never replaced. A symbolic link is written through (its target replaced), and the replaced file's
 * permissions are kept.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const fd = descriptorOf(file);
  if (fd !== null) {
    await writeDescriptor(fd, data).catch((err: unknown) => {
      throw toIoError(err, `write ${file}`);
    });
    return;
  }
  if (writesInPlace(file)) {
    try {
      // appended: a device or FIFO has no content to keep, and O_APPEND takes nothing from it
      await writeFile(file, data, { flag: 'a' });
    } catch (err) {
      throw toIoError(err, `write ${file}`);
    }
    return;
  }
  const target = finalPath(file);
  const tmp = tempBeside(target);
  let created = false;
  try {
    const fh = await open(tmp, 'wx', 0o644);
    created = true;
    try {
      const mode = existingMode(target);
      if (mode !== null) await fh.chmod(mode);
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, target);
    created = false;
  } catch (err) {
    if (created) await unlink(tmp).catch(() => {});
    throw toIoError(err, `write ${file}`);
  }
}

/**
 * Writes to an open descriptor: stdout and stderr through their streams (in order with what else
 * the process writes there), another descriptor with write(2) until all is written.
 */
async function writeDescriptor(fd: number, data: string | Uint8Array): Promise<void> {
  if (fd === 1 || fd === 2) {
    const stream = fd === 1 ? process.stdout : process.stderr;
    await new Promise<void>((done, fail) => {
      stream.write(data, (err) => (err ? fail(err) : done()));
    });
    return;
  }
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
}

/** The permission bits of an existing file (kept by the file that replaces it), or null. */
function existingMode(file: string): number | null {
  try {
    return statSync(file).mode & 0o7777;
  } catch {
    return null;
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
  if (writesInPlace(file)) throw new IoError(`${file} is not a regular file (a synchronous atomic write needs one)`);
  const target = finalPath(file);
  const tmp = tempBeside(target);
  let created = false;
  try {
    const fd = openSync(tmp, 'wx', 0o644);
    created = true;
    try {
      const mode = existingMode(target);
      if (mode !== null) fchmodSync(fd, mode);
      writeFileSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, target);
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
