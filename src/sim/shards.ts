/**
 * Shards of a run: which chunks a shard computes, when it stops a detector, the unit-ordered stop
 * rule over units from anywhere (walkUnits: one process, mergeShards and a shard reading its
 * siblings' files all apply it), and the directory shards share to stop together (no server: each
 * writes its own file atomically and reads the others').
 *
 * A shard K of N computes chunks K, K + N, ... of every point (a chunk is unitsPerChunk units; with
 * the default chunk, units K, K + N, ...). Where it stops a detector cannot change a merged count:
 * the merge takes units 0, 1, ... in order from whichever shard computed them and stops where one
 * process would have; a shard that stopped too early leaves units missing, which the merge names.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError, InvalidInputError } from '../core/index.js';
import type { ShardOptions, ShardUnits } from './types.js';

/**
 * Errors a shard's own units must reach before it stops a detector without news from the others:
 * its share m = maxErrors / count plus three standard deviations of a Poisson count (3 sqrt(m)) and
 * one, so that the run's stop lies within every shard's units but for rare draws; one shard of one
 * is the run and stops exactly at maxErrors.
 */
export function shardQuota(maxErrors: number, count: number): number {
  if (count === 1) return maxErrors;
  const m = maxErrors / count;
  return Math.ceil(m + 3 * Math.sqrt(m)) + 1;
}

/** The shard options' own rules: index below count; no time limit (a stop by time is not reproducible, so no merge could match). */
export function checkShard(shard: ShardOptions, maxTimeSeconds: number | undefined, call: string): void {
  if (shard.index >= shard.count)
    throw new InvalidArgumentError(`${call}: shard index ${shard.index} must be below the shard count ${shard.count}`, {
      option: 'shard',
      index: shard.index,
      count: shard.count,
    });
  if (maxTimeSeconds !== undefined)
    throw new InvalidArgumentError(
      `${call}: a shard cannot stop by time (maxTimeSeconds): the merge of shards gives one run's counts, and a time stop depends on the machine`,
      { option: 'maxTimeSeconds' },
    );
}

/** The chunks of a point a process computes, in order: every one, or a shard's (index, index + count, ...). */
export function chunkOrder(shard: Pick<ShardOptions, 'index' | 'count'> | null): (pos: number) => number {
  return shard ? (pos) => shard.index + pos * shard.count : (pos) => pos;
}

/** How many chunks of a point `chunkOrder` lists. */
export function chunksOf(maxChunks: number, shard: Pick<ShardOptions, 'index' | 'count'> | null): number {
  return shard ? Math.max(0, Math.ceil((maxChunks - shard.index) / shard.count)) : maxChunks;
}

/** The shard (of `count`, chunks of `unitsPerChunk` units) that computes unit u. */
export function shardOfUnit(u: number, unitsPerChunk: number, count: number): number {
  return Math.floor(u / unitsPerChunk) % count;
}

/** One unit's counts of one detector. */
export interface UnitCount {
  bitErrors: number;
  symbolErrors: number;
  frameErrors: number;
  unproven: number;
  iterations: number;
}

/** What walkUnits needs of the run: its units and stop rule. */
export interface UnitRule {
  maxUnits: number;
  unitVectors: number;
  maxVectors: number;
  maxErrors: number;
  /** Frame errors count toward the stop (coded), else bit errors. */
  coded: boolean;
}

/** A (point, detector)'s units merged in order: the sums, and why they stopped; or the first unit missing. */
export interface UnitWalk {
  bitErrors: number;
  symbolErrors: number;
  frameErrors: number;
  unproven: number;
  iterations: number;
  vectors: number;
  /** Units merged. */
  units: number;
  /** The stop reached, or null where unit `missing` was not there. */
  stoppedBy: 'errors' | 'vectors' | null;
  missing: number | null;
}

/** Vectors of unit u of a point (the last may be short). */
export const unitSize = (r: UnitRule, u: number): number => Math.min(r.unitVectors, r.maxVectors - u * r.unitVectors);

/**
 * Units 0, 1, ... of one (point, detector), their counts from `get` (undefined: not computed),
 * summed in order until the stop rule holds (errors reach maxErrors, or the last unit): the counts
 * one process gives, wherever the units were computed.
 */
export function walkUnits(r: UnitRule, get: (u: number) => UnitCount | undefined): UnitWalk {
  const w: UnitWalk = {
    bitErrors: 0,
    symbolErrors: 0,
    frameErrors: 0,
    unproven: 0,
    iterations: 0,
    vectors: 0,
    units: 0,
    stoppedBy: null,
    missing: null,
  };
  for (let u = 0; u < r.maxUnits; u++) {
    const c = get(u);
    if (!c) {
      w.missing = u;
      return w;
    }
    w.bitErrors += c.bitErrors;
    w.symbolErrors += c.symbolErrors;
    w.frameErrors += c.frameErrors;
    w.unproven += c.unproven;
    w.iterations += c.iterations;
    w.vectors += unitSize(r, u);
    w.units++;
    if ((r.coded ? w.frameErrors : w.bitErrors) >= r.maxErrors) {
      w.stoppedBy = 'errors';
      return w;
    }
  }
  w.stoppedBy = 'vectors';
  return w;
}

/** Unit u's counts in a shard's column record, by unit index. */
export function unitIndexOf(rec: ShardUnits): Map<number, number> {
  const at = new Map<number, number>();
  for (const [i, u] of rec.units.entries()) at.set(u, i);
  return at;
}

/** The counts of row i of a shard's record. */
export const unitCountAt = (rec: ShardUnits, i: number): UnitCount => ({
  bitErrors: rec.bitErrors[i]!,
  symbolErrors: rec.symbolErrors[i]!,
  frameErrors: rec.frameErrors[i]!,
  unproven: rec.unproven[i]!,
  iterations: rec.iterations[i]!,
});

/** What a shard writes to the shared directory: the run it belongs to, and its units so far. */
export interface ShardFile {
  run: string;
  index: number;
  count: number;
  unitsPerChunk: number;
  units: ShardUnits[];
}

/**
 * The directory shards share: each writes `shard-K-of-N.json` (written whole, then renamed over
 * the last, so a reader sees one complete version) and reads its siblings'. `run` names the run's
 * settings: a file of another run there is an InvalidInputError (a directory is one run's).
 */
export class ShardDir {
  constructor(
    readonly dir: string,
    readonly run: string,
    readonly shard: { index: number; count: number; unitsPerChunk: number },
  ) {
    mkdirSync(dir, { recursive: true });
  }

  private fileOf(index: number): string {
    return join(this.dir, `shard-${index}-of-${this.shard.count}.json`);
  }

  /** Writes this shard's units so far. */
  write(units: readonly ShardUnits[]): void {
    const file = this.fileOf(this.shard.index);
    const tmp = `${file}.${process.pid}.tmp`;
    const doc: ShardFile = { run: this.run, ...this.shard, units: [...units] };
    writeFileSync(tmp, JSON.stringify(doc));
    renameSync(tmp, file);
  }

  /** The other shards' files of this run (those written so far). */
  readOthers(): ShardFile[] {
    const out: ShardFile[] = [];
    const re = new RegExp(`^shard-(\\d+)-of-${this.shard.count}\\.json$`);
    for (const name of readdirSync(this.dir)) {
      const m = re.exec(name);
      if (!m || Number(m[1]) === this.shard.index) continue;
      let doc: ShardFile;
      try {
        doc = JSON.parse(readFileSync(join(this.dir, name), 'utf8')) as ShardFile;
      } catch {
        continue; // a file being replaced: read again next time
      }
      if (doc.run !== this.run)
        throw new InvalidInputError(
          'INVALID_INPUT',
          `shard directory ${this.dir}: ${name} belongs to another run (other settings or seed); give each run its own directory`,
          { file: join(this.dir, name) },
        );
      out.push(doc);
    }
    return out;
  }
}
