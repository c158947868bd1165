/**
 * `simulate --resume FILE`: the settings and finished points of a run, read from its JSON (a
 * shard's file: its settings and shard, to run it again; its points are a shard's, not the run's). Here
 * the settings are checked for kind (each field named); then simulate()'s own checks run on them
 * (sim's checkSimulationOptions: the settings, and every point against them, as the API checks
 * `completedPoints`), their errors re-raised naming the file: a resumed run never carries a
 * silently wrong count into its result.
 */
import { InvalidInputError, withContext } from '../core/index.js';
import { CHANNEL_MODELS, channelEntry, type ChannelModel } from '../channels/index.js';
import { DETECTORS, MODULATIONS } from '../mimo/index.js';
import { checkSimulationOptions, type SimDetector, type SimPoint, type SimulationOptions } from '../sim/index.js';

type Doc = Record<string, unknown>;

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
const isPositiveInt = (x: unknown): x is number => isCount(x) && x >= 1;
const isObject = (x: unknown): x is Doc => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * The settings and finished points of a run from its JSON (as simulate --json writes it), checked
 * as simulate() checks them; an error names the file (`FILE: completedPoints[3] (...): ...`).
 */
export function resumeOptions(text: string, file: string): SimulationOptions {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new InvalidInputError('PARSE_ERROR', `${file} is not valid JSON: ${(err as Error).message}`, { file });
  }
  if (!isObject(doc))
    throw new InvalidInputError('INVALID_INPUT', `${file}: expected the JSON object of a simulate run`, { file });
  const d = doc;
  const field = <T>(name: string, check: (x: unknown) => boolean, want: string): T => {
    const x = d[name];
    if (!check(x))
      throw new InvalidInputError(
        'INVALID_INPUT',
        `${file}: field "${name}" must be ${want}, got ${x === undefined ? 'nothing' : JSON.stringify(x)} (not the JSON of a simulate run?)`,
        { file, field: name },
      );
    return x as T;
  };
  const points = field<unknown[]>('points', Array.isArray, 'an array of points');
  const modulation = field<SimulationOptions['modulation']>(
    'modulation',
    (x) => (MODULATIONS as readonly unknown[]).includes(x),
    `one of ${MODULATIONS.join(', ')}`,
  );
  const detectors = field<SimDetector[]>(
    'detectors',
    (x) =>
      Array.isArray(x) &&
      x.length > 0 &&
      x.every((e) => isObject(e) && (DETECTORS as readonly unknown[]).includes(e.detector)),
    `a non-empty array of detectors ({"detector": one of ${DETECTORS.join(', ')}})`,
  );
  const opts: SimulationOptions = {
    nt: field('nt', isPositiveInt, 'a positive integer'),
    nr: field('nr', isPositiveInt, 'a positive integer'),
    modulation,
    detectors,
    snrs: field<number[]>(
      'snrs',
      (x) => Array.isArray(x) && x.length > 0 && x.every(isNum),
      'a non-empty array of finite numbers (dB)',
    ),
    snrType: field('snrType', (x) => x === 'esn0' || x === 'ebn0', 'esn0 or ebn0'),
    maxErrors: field('maxErrors', isPositiveInt, 'a positive integer'),
    maxVectors: field('maxVectors', isPositiveInt, 'a positive integer'),
    vectorsPerChannel: field('vectorsPerChannel', isPositiveInt, 'a positive integer'),
    chunkVectors: field('chunkVectors', isPositiveInt, 'a positive integer'),
    seed: field('seed', isCount, 'a non-negative integer'),
    // a file written before units drew each chunk from its own streams: its chunks were its units,
    // so the points still to compute continue the same draw
    unitVectors:
      d.unitVectors === undefined
        ? (d.chunkVectors as number)
        : field('unitVectors', isPositiveInt, 'a positive integer'),
    engine: 'auto',
    completedPoints: points as SimPoint[],
  };
  if (d.channel !== undefined)
    opts.channel = field(
      'channel',
      (x) => typeof x === 'string' && channelEntry(x) !== undefined,
      `a channel model (${CHANNEL_MODELS.join(', ')})`,
    ) as ChannelModel;
  if (d.channelOptions !== undefined)
    opts.channelOptions = field('channelOptions', isObject, "an object (the channel model's parameters)");
  if (d.ofdm !== undefined)
    opts.ofdm = field('ofdm', isObject, 'an object (the OFDM link: scs, prbs, csi, dmrsAdditional)');
  if (d.code !== undefined) {
    opts.code = field('code', (x) => typeof x === 'string', 'a code spec (wimax:N, nr:K:R)');
    opts.decoder = field('decoder', isObject, 'an object (the decoder settings)');
    if (d.maxFrames !== undefined) opts.maxFrames = field('maxFrames', isPositiveInt, 'a positive integer');
    if (d.idd !== undefined)
      opts.idd = field('idd', isPositiveInt, 'a positive integer (outer passes of detection and decoding)');
  }
  if (d.shard !== undefined) {
    const sh = field<{ index: number; count: number }>(
      'shard',
      (x) => isObject(x) && isCount(x.index) && isPositiveInt(x.count) && x.index < x.count,
      'a shard ({"index": K, "count": N, ...})',
    );
    opts.shard = { index: sh.index, count: sh.count };
    // a shard's points are its own units' counts, not finished points of the run
    delete opts.completedPoints;
  }
  if (d.maxTimeSeconds !== undefined)
    opts.maxTimeSeconds = field('maxTimeSeconds', (x) => isNum(x) && x > 0, 'a positive number of seconds');
  try {
    checkSimulationOptions(opts);
  } catch (err) {
    throw withContext(err, { file });
  }
  return opts;
}
