/**
 * The package surface: the names the README and docs use are exported from the package index, and
 * engine internals are not; one reduction through the index returns a proven, reduced basis.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import * as api from '../src/index.js';

const DOCUMENTED = [
  'reduce',
  'reduceSync',
  'gaussianBases',
  'blockToeplitzBases',
  'integerScale',
  'parseFplll',
  'parseFplllBasis',
  'formatFplll',
  'checkLLL',
  'checkLagrangePairs',
  'checkUnimodular',
  'checkLLLExact',
  'applyTransform',
  'qualityMetrics',
  'rebuildTransform',
  'allswapBatchCuda',
  'jacobiParallelBatchCuda',
  'detect',
  'simulate',
  'simulateWithTable',
  'rayleighChannels',
  'randomSymbols',
  'transmit',
  'addNoise',
  'Philox',
  'makeBatch',
  'LatticeMimoError',
  'EngineUnavailableError',
  'CheckFailedError',
  'UnsupportedError',
  'cudaAvailable',
];
const INTERNAL = [
  'checkBasis',
  'cudaWithBreakdowns',
  'isJacobiFamily',
  'allswapTuning',
  'latticeBatchTuning',
  'runLatticeBatch',
  'DETECTOR_REGISTRY',
  'validateDetection',
  'generateLinkChunk',
  'chunkStream',
  'LiveTable',
  'resolveEngine',
  'assertFinite',
  'WorkerPool',
  'allocReal',
  'mgsInPlace',
  'qrInto',
  'releaseCudaWorkspace',
];

test('the package index exports every documented name and no engine internal', () => {
  const names = new Set(Object.keys(api));
  for (const n of DOCUMENTED) assert.ok(names.has(n), `${n} is documented but not exported`);
  for (const n of INTERNAL) assert.ok(!names.has(n), `${n} is an internal but is exported`);
});

test('reduceSync through the package index returns B Z, proven LLL-reduced', () => {
  const seed = randomInt(2 ** 31);
  const n = 2 + (seed % 7);
  const bases = api.integerScale(api.gaussianBases({ batch: 3, n, seed }), 1000);
  const res = api.reduceSync(bases, { algorithm: 'lll', delta: 0.99 });
  for (let k = 0; k < bases.batch; k++) {
    const B = api.matrixAt(bases, k),
      Z = api.matrixAt(res.transform, k),
      out = api.matrixAt(res.basis, k);
    assert.ok(res.checks?.[k]?.ok, `seed ${seed}: basis ${k} failed its check`);
    assert.ok(api.checkLLL(out, n, n, 0.99, 0.51).ok, `seed ${seed}: basis ${k} not LLL-reduced`);
    assert.deepEqual(Array.from(api.applyTransform(B, Z, n, n)!), Array.from(out), `seed ${seed}: B Z != output`);
  }
});
