// The bench's batched inputs (seed 1, as `bench lattice`) for harness.cu: int32 batch, rows, cols,
// then the float32 data. APP_DIST: the built package's dist folder.
//   APP_DIST=dist node bench/col-lab/gen.mjs toeplitz|gaussian N BATCH OUT
const { blockToeplitzBases, gaussianBases } = await import(process.env.APP_DIST + '/src/lattice/generators.js');
import { writeFileSync } from 'node:fs';
const [family, nArg, batchArg, out] = process.argv.slice(2);
const n = Number(nArg), batch = Number(batchArg);
const t = family === 'gaussian' ? { ...gaussianBases({ batch, n, seed: 1, precision: 'float32' }), rows: n, cols: n }
  : blockToeplitzBases({ batch, blocks: n / 2, blockSize: 1, complex: true, taps: 3, shape: 'full', seed: 1, precision: 'float32' });
const rows = t.rows ?? n, cols = t.cols ?? n;
const head = new Int32Array([batch, rows, cols]);
writeFileSync(out, Buffer.concat([Buffer.from(head.buffer), Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength)]));
console.log(family, batch, rows, cols);
