/**
 * The cyclic redundancy checks of 3GPP TS 38.212 5.1 over bit arrays (Uint8Array of 0/1, the
 * first bit the highest power): CRC24A (transport blocks over 3824 bits), CRC24B (code blocks of a
 * segmented transport block), CRC24C (DCI and PBCH), CRC16 (transport blocks up to 3824 bits),
 * CRC11 and CRC6 (UCI). Parity p_0 .. p_{L-1} of bits a_0 .. a_{A-1} is the remainder of
 * a(D) D^L divided by the generator (38.212's definition; the register starts at zero, nothing is
 * reflected or inverted), p_0 its highest coefficient, so a message with its parity attached
 * divides by the generator: remainder 0.
 *
 * Long inputs run eight bits a step through a 256-entry table per generator (the remainder held
 * left-aligned in 32 bits, so one table form serves every length from 6 to 24), reading the bit
 * bytes four at a time as 32-bit words; the bits left over, short inputs (and every input on a
 * big-endian machine) one at a time.
 */
import { InvalidArgumentError, InvalidInputError } from '../core/index.js';

/** A 38.212 5.1 CRC by name. */
export type CrcKind = 'crc24a' | 'crc24b' | 'crc24c' | 'crc16' | 'crc11' | 'crc6';

/** A generator polynomial g(D) of degree `length`. */
export interface CrcSpec {
  /** Parity bits L (the generator's degree). */
  readonly length: number;
  /** The generator without its D^L term, bit i = coefficient of D^i. */
  readonly poly: number;
  /** Where 38.212 uses it. */
  readonly use: string;
}

/** The generators of 38.212 5.1. */
export const NR_CRCS: Readonly<Record<CrcKind, CrcSpec>> = Object.freeze({
  // D^24 + D^23 + D^18 + D^17 + D^14 + D^11 + D^10 + D^7 + D^6 + D^5 + D^4 + D^3 + D + 1
  crc24a: { length: 24, poly: 0x864cfb, use: 'transport blocks of more than 3824 bits (7.2.1)' },
  // D^24 + D^23 + D^6 + D^5 + D + 1
  crc24b: { length: 24, poly: 0x800063, use: 'code blocks of a segmented transport block (5.2.2)' },
  // D^24 + D^23 + D^21 + D^20 + D^17 + D^15 + D^13 + D^12 + D^8 + D^4 + D^2 + D + 1
  crc24c: { length: 24, poly: 0xb2b117, use: 'DCI (7.3.2) and the PBCH payload (7.1.3)' },
  // D^16 + D^12 + D^5 + 1
  crc16: { length: 16, poly: 0x1021, use: 'transport blocks of at most 3824 bits (7.2.1)' },
  // D^11 + D^10 + D^9 + D^5 + 1
  crc11: { length: 11, poly: 0x621, use: 'UCI of 20 bits or more (6.3.1.2.1)' },
  // D^6 + D^5 + 1
  crc6: { length: 6, poly: 0x21, use: 'UCI of 12 to 19 bits (6.3.1.2.1)' },
});

/** Every {@link CrcKind}. */
export const CRC_KINDS: readonly CrcKind[] = Object.freeze(Object.keys(NR_CRCS) as CrcKind[]);

/** Below this many bits the table is not worth its byte packing. */
const TABLE_MIN_BITS = 32;

const tables: Partial<Record<CrcKind, Uint32Array>> = {};

function specOf(kind: CrcKind): CrcSpec {
  const spec = Object.hasOwn(NR_CRCS, kind) ? NR_CRCS[kind] : undefined;
  if (!spec)
    throw new InvalidArgumentError(`unknown CRC '${String(kind)}': expected one of ${CRC_KINDS.join(', ')}`, {
      kind,
    });
  return spec;
}

/** The generator left-aligned in 32 bits: D^(L-1) at bit 31. */
const leftPoly = (s: CrcSpec): number => (s.poly << (32 - s.length)) >>> 0;

/** table[b] = b(D) D^L mod g(D), left-aligned: what a register whose top byte is b holds after eight shifts. */
function tableOf(kind: CrcKind, spec: CrcSpec): Uint32Array {
  let t = tables[kind];
  if (t) return t;
  const P = leftPoly(spec);
  t = new Uint32Array(256);
  for (let b = 0; b < 256; b++) {
    let r = (b << 24) >>> 0;
    for (let i = 0; i < 8; i++) r = (r & 0x80000000 ? (r << 1) ^ P : r << 1) >>> 0;
    t[b] = r;
  }
  tables[kind] = t;
  return t;
}

/** Checks that the span lies inside `bits`; `what` names the array in messages. */
function checkSpan(bits: Uint8Array, start: number, length: number, what: string): void {
  if (!(bits instanceof Uint8Array)) throw new InvalidArgumentError(`${what} must be a Uint8Array of 0/1 bits`);
  if (!Number.isInteger(start) || !Number.isInteger(length) || start < 0 || length < 0 || start + length > bits.length)
    throw new InvalidArgumentError(
      `${what}: bits ${start} .. ${start + length - 1} are outside its ${bits.length} bits`,
      {
        start,
        length,
        bits: bits.length,
      },
    );
}

/** The typed error for the first entry of the span that is not a bit. */
function notABit(bits: Uint8Array, start: number, length: number, what: string): InvalidInputError {
  let i = start;
  while (i < start + length - 1 && bits[i]! <= 1) i++;
  return new InvalidInputError('INVALID_INPUT', `${what}: bit ${i} is ${bits[i]}, not 0 or 1`, { index: i });
}

/** Whether a Uint32Array reads bytes little-endian (the word path's packing assumes it). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Four bit-bytes b0..b3 of a little-endian word -> b0 b1 b2 b3 at bits 24..27 (b0 highest): the
 * product moves byte j by 27 - 9j places; every other term lands at or above bit 32 (dropped) or
 * on distinct bits below 24 (no carries).
 */
const NIBBLE = 0x08040201;

/**
 * The remainder of the span, checking that every entry is 0 or 1 on the way. Long spans run eight
 * bits a step: two aligned 32-bit words of four bit-bytes each, packed to a byte (NIBBLE), one
 * table look-up; the unaligned head and the tail a bit a step.
 */
function remainder(
  kind: CrcKind,
  spec: CrcSpec,
  bits: Uint8Array,
  start: number,
  length: number,
  what: string,
): number {
  const P = leftPoly(spec);
  const end = start + length;
  let R = 0,
    bad = 0,
    i = start;
  if (length >= TABLE_MIN_BITS && LITTLE_ENDIAN) {
    for (const head = Math.min(end, start + ((4 - ((bits.byteOffset + start) & 3)) & 3)); i < head; i++) {
      bad |= bits[i]!;
      R = bitStep(R, bits[i]!, P);
    }
    const words = new Uint32Array(bits.buffer, bits.byteOffset + i, ((end - i) >> 3) * 2);
    const T = tableOf(kind, spec);
    let wordBad = 0;
    for (let k = 0; k < words.length; k += 2) {
      const a = words[k]!,
        b = words[k + 1]!;
      wordBad |= a | b;
      const byte = ((Math.imul(a, NIBBLE) >>> 20) & 0xf0) | ((Math.imul(b, NIBBLE) >>> 24) & 0x0f);
      R = ((R << 8) ^ T[(R >>> 24) ^ byte]!) >>> 0;
    }
    if (wordBad & 0xfefefefe) bad = 2;
    i += words.length * 4;
  }
  for (; i < end; i++) {
    bad |= bits[i]!;
    R = bitStep(R, bits[i]!, P);
  }
  if (bad > 1) throw notABit(bits, start, length, what);
  return R >>> (32 - spec.length);
}

/** One bit through the left-aligned register R (generator P, left-aligned). */
function bitStep(R: number, bit: number, P: number): number {
  const r = (R ^ (bit << 31)) >>> 0;
  return (r & 0x80000000 ? (r << 1) ^ P : r << 1) >>> 0;
}

/**
 * The CRC parity of bits[start .. start + length - 1] as a number: bit L-1 is p_0 (the parity bit
 * sent first). Over a message with its parity attached the remainder is 0. Typed errors: an
 * unknown kind or a span outside `bits` (InvalidArgumentError), an entry other than 0 / 1
 * (InvalidInputError INVALID_INPUT).
 */
export function crcOf(kind: CrcKind, bits: Uint8Array, start = 0, length = bits.length - start): number {
  const spec = specOf(kind);
  checkSpan(bits, start, length, 'CRC input');
  return remainder(kind, spec, bits, start, length, 'CRC input');
}

/** Writes the L parity bits of `value` (p_0 first) at out[offset ..]. */
function writeParity(value: number, L: number, out: Uint8Array, offset: number): void {
  for (let k = 0; k < L; k++) out[offset + k] = (value >>> (L - 1 - k)) & 1;
}

/**
 * The message with its CRC attached: bits (A) -> A + L bits, a_0 .. a_{A-1} p_0 .. p_{L-1}
 * (38.212 5.1). `out` (optional, A + L bits) receives it.
 */
export function crcAttach(kind: CrcKind, bits: Uint8Array, out?: Uint8Array): Uint8Array {
  const spec = specOf(kind);
  checkSpan(bits, 0, bits.length, 'CRC input');
  const p = remainder(kind, spec, bits, 0, bits.length, 'CRC input');
  const n = bits.length + spec.length;
  const o = out ?? new Uint8Array(n);
  if (!(o instanceof Uint8Array) || o.length !== n)
    throw new InvalidInputError(
      'SHAPE_MISMATCH',
      `CRC output has ${o instanceof Uint8Array ? o.length : 'no'} bits, ${bits.length} + ${spec.length} needed`,
    );
  o.set(bits);
  writeParity(p, spec.length, o, bits.length);
  return o;
}

/**
 * Whether bits[start .. start + length - 1], a message followed by its L parity bits, passes the
 * check (the remainder is 0). A span shorter than L is an InvalidArgumentError.
 */
export function crcCheck(kind: CrcKind, bits: Uint8Array, start = 0, length = bits.length - start): boolean {
  const spec = specOf(kind);
  if (length < spec.length)
    throw new InvalidArgumentError(`a ${kind} check needs at least its ${spec.length} parity bits, got ${length}`, {
      length,
    });
  return crcOf(kind, bits, start, length) === 0;
}
