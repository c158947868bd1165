/**
 * The options of the recursive reduction (recursiveReduce() and `reduce -a recursive`), one schema:
 * each option's check, doc line, default and command-line flag. The quality is asked one of three
 * ways, at most one of them:
 *  - delta (with eta): the output LLL-reduced at (delta, eta) and proven, the LLL finish included
 *    (the default, at delta 0.99 as fplll's and flatter's);
 *  - rhf: stop as soon as the root Hermite factor of the output is at most this (no finish);
 *  - alpha: every profile drop r_ii / r_{i+1,i+1} at most alpha, and size-reduced (no finish).
 */
import {
  EngineUnavailableError,
  InvalidArgumentError,
  boolean,
  checkOptions,
  choice,
  inapplicable,
  integer,
  number,
  option,
  type OptionsOf,
  type SameKeys,
} from '../../core/index.js';

/** Options of recursiveReduce(); every one optional and checked (InvalidArgumentError names the bad one). */
export interface RecursiveOptions {
  /** Lovasz parameter in (0.25, 1) of the leaves and of the LLL finish; default 0.99. */
  delta?: number;
  /** Size-reduction bound in [0.5, sqrt(delta)); default 0.51. */
  eta?: number;
  /** Stop once the root Hermite factor is at most this (> 1); no LLL finish. */
  rhf?: number;
  /** Every ratio r_ii / r_{i+1,i+1} at most this (>= 1.17), size-reduced; no LLL finish. */
  alpha?: number;
  /** With delta: finish with the proven LLL at (delta, eta) (default true). */
  finish?: boolean;
  /** 'cpu' or 'auto' (the CPU engine); 'cuda' is an EngineUnavailableError (no GPU implementation yet). */
  engine?: 'auto' | 'cpu' | 'cuda';
  /** Threads (default 1): with more, the recursion's independent halves run at once on worker threads (the same output). */
  threads?: number;
  /** Bits a compressed copy keeps below its shortest Gram-Schmidt vector, [8, 40]; default 20. */
  guard?: number;
  /** Bound on the rounds of each level of the recursion; default 64 m + 1000. */
  maxRounds?: number;
  /** Vectors of the first block whose lattice a pruned enumeration searches for a shorter b_0 (0: none); default 56. */
  svpBlock?: number;
  /** Node budget of each enumeration (the first block's, each of the tours'); default 2^23. */
  svpNodes?: number;
  /** Block of the BKZ tours on the prefix before the first block's search (0: none); default 24. */
  bkzBlock?: number;
  /** Tours at most (fewer where one puts nothing); default 3. */
  bkzTours?: number;
  /** Vectors the tours cover; default half the basis, at least 40. */
  bkzPrefix?: number;
}

/** The first vectors' defaults: at most about a second of enumeration (a tenth where the tours leave the first block short already). */
export const SVP_BLOCK = 56,
  SVP_NODES = 2 ** 23,
  BKZ_BLOCK = 24,
  BKZ_TOURS = 3;

/** The smallest alpha: LLL's profile drop bound 1 / sqrt(delta - eta^2) at delta 0.99, eta 0.51, rounded up. */
export const MIN_ALPHA = 1.17;

export const RECURSIVE_SCHEMA = {
  delta: option(
    number({ min: 0.25, max: 1, minOpen: true, maxOpen: true }),
    'the Lovasz parameter of the leaves and of the proven LLL finish',
    {
      default: 0.99,
      cli: { flag: 'delta', metavar: 'D' },
    },
  ),
  eta: option(
    number({ min: 0.5, max: 1, maxOpen: true }),
    'the size-reduction bound |mu_ij| <= eta, below sqrt(delta)',
    {
      default: 0.51,
      cli: { flag: 'eta', metavar: 'E' },
    },
  ),
  rhf: option(
    number({ min: 1, max: 2, minOpen: true }),
    'stop once the root Hermite factor is at most this; the compressed reduction alone, no LLL finish',
    { cli: { flag: 'rhf', metavar: 'R' } },
  ),
  alpha: option(
    number({ min: MIN_ALPHA, max: 1e6 }),
    'every profile drop r_ii / r_(i+1)(i+1) at most this, size-reduced; the compressed reduction alone, no LLL finish',
    { cli: { flag: 'alpha', metavar: 'A' } },
  ),
  finish: option(boolean(), 'with delta: finish with the proven LLL at (delta, eta)', { default: true }),
  engine: option(choice(['auto', 'cpu', 'cuda'] as const), "the engine: 'cuda' is an error (no GPU implementation)", {
    default: 'auto',
    cli: { flag: 'engine', metavar: 'E' },
  }),
  threads: option(
    integer(1, 256),
    'threads: the independent halves of the recursion on worker threads (the same output as one thread)',
    {
      default: 1,
      cli: { flag: 'threads', metavar: 'N' },
    },
  ),
  guard: option(integer(8, 40), 'bits a compressed copy keeps below its shortest Gram-Schmidt vector', {
    default: 20,
  }),
  maxRounds: option(integer(1), 'bound on the rounds of each level of the recursion (default 64 m + 1000)'),
  svpBlock: option(
    integer(0, 1024),
    'vectors of the first block whose lattice a pruned enumeration searches for a shorter first vector, put first and the block reduced again (0: none)',
    { default: SVP_BLOCK, cli: { flag: 'svp-block', metavar: 'K' } },
  ),
  svpNodes: option(integer(1, 2 ** 40), "node budget of each enumeration (the first block's, the tours')", {
    default: SVP_NODES,
    cli: { flag: 'svp-nodes', metavar: 'N' },
  }),
  bkzBlock: option(
    integer(0, 1024),
    "block of the BKZ tours on the basis' first vectors before the first block's search (0: none)",
    { default: BKZ_BLOCK, cli: { flag: 'bkz-block', metavar: 'K' } },
  ),
  bkzTours: option(integer(0, 1000), 'BKZ tours at most (fewer where one changes nothing)', {
    default: BKZ_TOURS,
    cli: { flag: 'bkz-tours', metavar: 'T' },
  }),
  bkzPrefix: option(integer(2), 'vectors the BKZ tours cover (default half the basis, at least 40)', {
    cli: { flag: 'bkz-prefix', metavar: 'P' },
  }),
};

const _sameKeys: SameKeys<RecursiveOptions, typeof RECURSIVE_SCHEMA> = true;
void _sameKeys;

/** What one call asks, checked and with defaults filled in. */
export interface ResolvedRecursive {
  /** The leaves' Lovasz parameter (from delta, or from alpha). */
  delta: number;
  eta: number;
  /** The goal: the proven LLL (delta), an rhf bound, or an alpha bound. */
  goal: { kind: 'lll'; finish: boolean } | { kind: 'rhf'; rhf: number } | { kind: 'alpha'; alpha: number };
  guard: number;
  maxRounds: number;
  /** Threads (1: no workers). */
  threads: number;
  /** The first block's size (0: no search) and the node budget of every enumeration. */
  svpBlock: number;
  svpNodes: number;
  /** The prefix's BKZ tours: block (0: none), tours, prefix (undefined: first-block.ts's default). */
  bkzBlock: number;
  bkzTours: number;
  bkzPrefix?: number;
}

/** Checks recursiveReduce()'s options for a basis of m vectors (typed errors naming the option). */
export function resolveRecursive(opts: unknown, m: number, call = 'recursiveReduce()'): ResolvedRecursive {
  const o: OptionsOf<typeof RECURSIVE_SCHEMA> = checkOptions(opts, RECURSIVE_SCHEMA, call);
  const asked = (['delta', 'rhf', 'alpha'] as const).filter((k) => o[k] !== undefined);
  if (asked.length > 1)
    throw new InvalidArgumentError(
      `${call}: give one quality of delta, rhf and alpha, got ${asked.join(' and ')} (delta: LLL-reduced and proven; rhf, alpha: the compressed reduction alone)`,
      { option: asked[1] },
    );
  if (o.finish !== undefined && (o.rhf !== undefined || o.alpha !== undefined))
    throw inapplicable(
      call,
      'finish',
      'the LLL finish is at delta, and rhf or alpha asks for the compressed reduction alone',
    );
  if (o.eta !== undefined && o.rhf !== undefined)
    throw inapplicable(call, 'eta', "the size-reduction bound is the LLL finish's, and rhf asks for no finish");
  if (o.engine === 'cuda')
    throw new EngineUnavailableError(
      `${call}: the recursive reduction has no CUDA implementation yet (engine 'cpu' or 'auto' reduces on the CPU)`,
      { cause: 'no-gpu-implementation' },
    );
  const eta = o.eta ?? 0.51;
  const guard = o.guard ?? 20;
  const maxRounds = o.maxRounds ?? 64 * m + 1000;
  const threads = o.threads ?? 1;
  const svp = {
    svpBlock: o.svpBlock ?? SVP_BLOCK,
    svpNodes: o.svpNodes ?? SVP_NODES,
    bkzBlock: o.bkzBlock ?? BKZ_BLOCK,
    bkzTours: o.bkzTours ?? BKZ_TOURS,
    ...(o.bkzPrefix !== undefined ? { bkzPrefix: o.bkzPrefix } : {}),
  };
  if (o.alpha !== undefined) {
    // LLL at delta bounds every drop by 1 / sqrt(delta - eta^2): the delta whose bound is alpha
    const delta = Math.min(0.99, 1 / (o.alpha * o.alpha) + eta * eta);
    return { delta, eta, goal: { kind: 'alpha', alpha: o.alpha }, guard, maxRounds, threads, ...svp };
  }
  if (o.rhf !== undefined)
    return { delta: 0.99, eta, goal: { kind: 'rhf', rhf: o.rhf }, guard, maxRounds, threads, ...svp };
  const delta = o.delta ?? 0.99;
  if (!(eta < Math.sqrt(delta)))
    throw new InvalidArgumentError(`${call}: eta must be below sqrt(delta) = ${Math.sqrt(delta)}, got ${eta}`, {
      option: 'eta',
    });
  return { delta, eta, goal: { kind: 'lll', finish: o.finish ?? true }, guard, maxRounds, threads, ...svp };
}

/** Checks recursiveReduce()'s options before any input is read (the command line): the typed error resolveRecursive() would throw. */
export function checkRecursiveOptions(opts: RecursiveOptions): void {
  resolveRecursive(opts, 1, 'reduce -a recursive');
}
