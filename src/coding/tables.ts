/**
 * The code tables as shipped in the project's data folder (shared/data/ldpc), copied verbatim into
 * src/coding/data/ and installed with the compiled code; parsed by {@link parseBaseMatrix} like any
 * file in that format. Each is read once, on first use.
 */
import { readFileSync } from 'node:fs';

/**
 * The tables: `wimax-2304-rate-1_2` (IEEE 802.16e rate 1/2, 12 x 24, written for z0 = 96),
 * `nr-bg1` (38.212 Table 5.3.2-2: 46 x 68) and `nr-bg2` (Table 5.3.2-3: 42 x 52), the NR graphs with
 * shifts for the 8 lifting-size sets.
 */
export type CodeTableName = 'wimax-2304-rate-1_2' | 'nr-bg1' | 'nr-bg2';

const texts = new Map<CodeTableName, string>();

/** The text of a shipped base-matrix file (`src/coding/data/<name>.txt`). */
export function codeTableText(name: CodeTableName): string {
  let text = texts.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(`./data/${name}.txt`, import.meta.url), 'utf8');
    texts.set(name, text);
  }
  return text;
}
