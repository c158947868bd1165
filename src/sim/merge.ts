/**
 * mergeShards(): the run that shards of one simulation make together. Each shard's result keeps
 * its units' counts (SimulationResult.shard); the merge takes units 0, 1, ... of every (point,
 * detector) in order from whichever shard computed them and applies the stop rules as one process
 * does (shards.ts walkUnits), so the counts equal an unsharded run's of the same seed, whatever the
 * order of the shards or how each cut its work. Where a needed unit was not computed (a shard that
 * stopped at its quota too early, or a shard missing), the merge refuses, naming the units and, for
 * each shard, the unit it must reach.
 */
import { InvalidInputError } from '../core/index.js';
import { snrToNoiseVar } from '../mimo/index.js';
import { shardOfUnit, unitCountAt, unitIndexOf, walkUnits } from './shards.js';
import { plan, runKey, type Tally, toPoint, unitRule } from './simulate.js';
import type { ShardUnits, SimPoint, SimulationOptions, SimulationResult } from './types.js';

/** The settings of a run, from its result (what resuming or merging it needs). */
export function optionsOfResult(r: SimulationResult): SimulationOptions {
  return {
    nt: r.nt,
    nr: r.nr,
    modulation: r.modulation,
    detectors: r.detectors,
    snrs: r.snrs,
    snrType: r.snrType,
    maxErrors: r.maxErrors,
    maxVectors: r.maxVectors,
    vectorsPerChannel: r.vectorsPerChannel,
    // a result written before units had none: its chunks were its units
    unitVectors: r.unitVectors ?? r.chunkVectors,
    chunkVectors: r.chunkVectors,
    seed: r.seed,
    engine: 'cpu',
    ...(r.channel !== undefined ? { channel: r.channel } : {}),
    ...(r.channelOptions !== undefined ? { channelOptions: r.channelOptions } : {}),
    ...(r.ofdm !== undefined ? { ofdm: r.ofdm } : {}),
    ...(r.code !== undefined ? { code: r.code, decoder: r.decoder ?? {} } : {}),
    ...(r.idd !== undefined ? { idd: r.idd } : {}),
    ...(r.maxFrames !== undefined ? { maxFrames: r.maxFrames } : {}),
  };
}

/** A unit the merge needed and no shard had. */
export interface MissingUnit {
  /** The SNR point's index. */
  snrIndex: number;
  /** The detector's label. */
  detector: string;
  /** The unit's index at the point. */
  unit: number;
  /** The shard whose chunks hold it. */
  shard: number;
}

/** The words of SHARDS_INCOMPLETE: which units are missing (the first 20). */
export function missingUnitsText(missing: readonly MissingUnit[]): string {
  const list = missing.map((m) => `SNR index ${m.snrIndex} ${m.detector} unit ${m.unit} (shard ${m.shard})`);
  return `the shards stopped before the run's stop: units missing: ${list.join(', ')}${missing.length === 20 ? ', ...' : ''}`;
}

/**
 * The merged run of `shards` (the results of simulate() with `shard`, any order): one result as an
 * unsharded simulate() of the same settings and seed gives (its counts equal; timeMs the shards'
 * detection time of the units taken, wallMs the longest shard's).
 *
 * InvalidInputError (INVALID_INPUT) where the shards cannot make one run: none given, one without
 * its units (not a shard), shards of other settings or seed, of different shard counts or chunk
 * sizes, the same shard twice, a shard that stopped on an error; and, details.reason
 * 'SHARDS_INCOMPLETE', where units the stop rules reach are missing: details.missing lists them
 * (at most 20), details.rerun each shard to run again with the unit it must reach
 * (`{ shard, minUnit }`: ShardOptions.minUnit).
 */
export function mergeShards(shards: readonly SimulationResult[]): SimulationResult {
  const bad = (why: string, details: Record<string, unknown> = {}) =>
    new InvalidInputError('INVALID_INPUT', `mergeShards(): ${why}`, details);
  if (shards.length === 0) throw bad('no shards given');
  shards.forEach((s, i) => {
    if (!s.shard) throw bad(`results[${i}] is not a shard (no per-unit counts: a run without shard)`, { result: i });
    if (s.error)
      throw bad(`results[${i}] (shard ${s.shard.index}) stopped on an error: ${s.error.message}; run it again`, {
        result: i,
        shard: s.shard.index,
      });
  });
  const first = shards[0]!;
  const { count, unitsPerChunk } = first.shard!;
  const p = plan(optionsOfResult(first));
  const key = runKey(p);
  const seen = new Map<number, number>();
  shards.forEach((s, i) => {
    const sh = s.shard!;
    if (sh.count !== count)
      throw bad(`results[${i}] is shard ${sh.index} of ${sh.count}, results[0] one of ${count}`, { result: i });
    if (sh.unitsPerChunk !== unitsPerChunk)
      throw bad(
        `results[${i}] cut its work into chunks of ${sh.unitsPerChunk} units, results[0] of ${unitsPerChunk}: the shards of a run share chunkVectors (it decides which shard computes which unit)`,
        { result: i },
      );
    const was = seen.get(sh.index);
    if (was !== undefined) throw bad(`results[${was}] and results[${i}] are both shard ${sh.index}`, { result: i });
    seen.set(sh.index, i);
    if (i > 0 && runKey(plan(optionsOfResult(s))) !== key)
      throw bad(`results[${i}] (shard ${sh.index}) ran other settings or another seed than results[0]`, { result: i });
  });
  const rule = unitRule(p);
  const points: SimPoint[] = [];
  const missing: MissingUnit[] = [];
  const rerun = new Map<number, number>();
  for (let i = 0; i < p.opts.snrs.length; i++) {
    const snr = p.opts.snrs[i]!;
    const noiseVar = snrToNoiseVar(snr, p.snrType, p.bitsPerSymbol, p.coded?.rate ?? 1);
    for (const [d, label] of p.labels.entries()) {
      const recs: ShardUnits[] = shards.flatMap((s) =>
        s.shard!.units.filter((r) => r.snrIndex === i && r.detector === label),
      );
      const index = recs.map(unitIndexOf);
      const used = recs.map(() => 0);
      const walk = walkUnits(rule, (u) => {
        for (const [k, rec] of recs.entries()) {
          const at = index[k]!.get(u);
          if (at !== undefined) {
            used[k]!++;
            return unitCountAt(rec, at);
          }
        }
        return undefined;
      });
      if (walk.missing !== null) {
        const shard = shardOfUnit(walk.missing, unitsPerChunk, count);
        if (missing.length < 20) missing.push({ snrIndex: i, detector: label, unit: walk.missing, shard });
        rerun.set(shard, Math.max(rerun.get(shard) ?? 0, walk.missing));
        continue;
      }
      const t: Tally = {
        bitErrors: walk.bitErrors,
        symbolErrors: walk.symbolErrors,
        frameErrors: walk.frameErrors,
        unproven: walk.unproven,
        vectors: walk.vectors,
        iterations: walk.iterations,
        timeMs: recs.reduce((a, r, k) => a + (r.units.length > 0 ? (r.timeMs * used[k]!) / r.units.length : 0), 0),
        stoppedBy: walk.stoppedBy,
      };
      points.push(toPoint(p, d, i, snr, noiseVar, t));
    }
  }
  if (missing.length > 0) {
    const runs = [...rerun].sort((a, b) => a[0] - b[0]).map(([shard, minUnit]) => ({ shard, minUnit }));
    throw new InvalidInputError(
      'INVALID_INPUT',
      `mergeShards(): ${missingUnitsText(missing)}; run ${runs.map((r) => `shard ${r.shard} with minUnit ${r.minUnit}`).join(', ')} again`,
      { reason: 'SHARDS_INCOMPLETE', missing, rerun: runs, count },
    );
  }
  const { shard: _shard, ...rest } = first;
  return {
    ...rest,
    unitVectors: p.unitVectors,
    interrupted: false,
    wallMs: Math.max(...shards.map((s) => s.wallMs)),
    points,
  };
}
