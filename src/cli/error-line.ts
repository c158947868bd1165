/**
 * The one line an error prints at the command line's edge, and the escaping that keeps a terminal
 * safe from what the user typed: messages echo option values, file names and input tokens, which
 * may hold control characters (a raw ESC or DEL would move the cursor, recolour or retitle the
 * terminal) or bytes that were not UTF-8.
 */
import { describeError, LatticeMimoError } from '../core/index.js';

/**
 * C0 and C1 control characters, DEL, the line and paragraph separators, the bidirectional
 * overrides and isolates (they reorder what a terminal shows), U+FFFD (what Node reads an invalid
 * UTF-8 byte as, in argv and in files) and unpaired surrogates.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is its purpose
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffd]|\p{Surrogate}/gu;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with every unsafe character written as an escape: \n, \t, \r, \x1b, \x7f, \ufffd. */
export function escapeForTerminal(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const named = NAMED[c];
    if (named) return named;
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** The one line an error prints (without its newline); exit code 2 for anything the user can fix. */
export function errorLine(err: unknown): string {
  const { code, message } = describeError(err);
  // a typed error's whole message, any line break in it (from the user's input) escaped; of another
  // error (a stack-like message from Node or a bug) the first line
  const text = err instanceof LatticeMimoError ? message : message.split('\n')[0]!;
  return `lattice-mimo: error [${code}]: ${escapeForTerminal(text)}`;
}
