/**
 * Reading code files from disk: a base matrix in the project's format or an alist file. File-system
 * failures become IoError naming the file; malformed content InvalidInputError(PARSE_ERROR) with
 * the file as its context (its message starts with the file name).
 */
import { readFile } from 'node:fs/promises';
import { withContext, toIoError } from '../core/index.js';
import { parseAlist, parseBaseMatrix } from './parity.js';
import type { BaseMatrixTable, SparseParityCheck } from './types.js';

async function parseFile<T>(path: string, parse: (text: string) => T): Promise<T> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw toIoError(err, `read ${path}`);
  }
  try {
    return parse(text);
  } catch (err) {
    throw withContext(err, { file: path });
  }
}

/** Reads and parses a base-matrix file (see parseBaseMatrix). */
export function readBaseMatrixFile(path: string): Promise<BaseMatrixTable> {
  return parseFile(path, parseBaseMatrix);
}

/** Reads and parses an alist file (see parseAlist). */
export function readAlistFile(path: string): Promise<SparseParityCheck> {
  return parseFile(path, parseAlist);
}
