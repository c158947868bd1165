import { execFileSync } from 'node:child_process';
import { jacobiParallelCpu } from './.build/gpu/src/lattice/jacobi-parallel/cpu.js';
import { blockToeplitzBases, gaussianBases } from './.build/gpu/src/lattice/generators.js';
import { Philox } from './.build/gpu/src/core/rng.js';
const seed = Number(process.argv[2] ?? Date.now() % 1e9);
const p = { delta: 0.75, eta: 0.51, blockSize: 8, maxIterations: 5000 };
let fails = 0, runs = 0;
function run(prec, data, batch, n, m, nt, gs, zs, label) {
  const A = prec === 'float32' ? Float32Array : Float64Array;
  const hdr = new Int32Array([batch, n, m, p.maxIterations, nt, gs, zs]);
  const input = Buffer.concat([Buffer.from(hdr.buffer), Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
  const out = execFileSync(`/tmp/emu/jp_${prec === 'float32' ? 'float' : 'double'}`, { input, maxBuffer: 1 << 26 });
  const eb = A.BYTES_PER_ELEMENT;
  const Bo = new A(out.buffer.slice(out.byteOffset, out.byteOffset + batch*n*m*eb));
  let off = out.byteOffset + batch*n*m*eb;
  const Zo = new Float64Array(out.buffer.slice(off, off + batch*m*m*8)); off += batch*m*m*8;
  const st = new Int32Array(out.buffer.slice(off, off + batch*5*4));
  for (let b = 0; b < batch; b++) {
    runs++;
    const B = data.slice(b*n*m, (b+1)*n*m); const Z = new Float64Array(m*m); for (let i=0;i<m;i++) Z[i+i*m]=1;
    let s; try { s = jacobiParallelCpu(B, Z, n, m, p); } catch (e) { s = { err: e.code }; }
    const zg = Zo.subarray(b*m*m, (b+1)*m*m), bg = Bo.subarray(b*n*m,(b+1)*n*m);
    const zeq = zg.every((v,i)=>v===Z[i]), beq = bg.every((v,i)=>Object.is(v,B[i]));
    const sg = Array.from(st.subarray(b*5,b*5+5));
    const seq = sg[0]===s.iterations && sg[1]===s.swaps && sg[2]===s.sizeReductions && sg[3]===0;
    if (!zeq || !beq || !seq) { fails++; console.log('MISMATCH', {label,prec,n,m,nt,gs,zs,b, zeq, beq, cpu: s, gpu: sg}); }
  }
}
for (const prec of ['float64', 'float32']) {
  const A = prec === 'float32' ? Float32Array : Float64Array;
  for (const [blocks, bs, taps] of [[4,2,2],[6,2,3],[3,4,2],[8,2,4]]) {
    for (const shape of ['square','full']) {
      const t = blockToeplitzBases({ batch: 2, blocks, blockSize: bs, taps, shape, seed: seed + blocks, precision: prec });
      run(prec, t.data, 2, t.rows, t.cols, 64, 1, 1, 'toeplitz-'+shape);
    }
  }
  // integer bases (exact Gram path) and scaled bases
  const rng = new Philox(seed, 99);
  for (const [n, m] of [[5,5],[10,8],[12,12]]) {
    const d = new A(2*n*m); for (let i=0;i<d.length;i++) d[i] = Math.round(rng.normal()*50);
    run(prec, d, 2, n, m, 32, 1, 0, 'integer');
    const g = gaussianBases({ batch: 2, n, m, seed: seed+n, precision: prec });
    for (let i=0;i<g.data.length;i++) g.data[i] *= 1e6;
    run(prec, g.data, 2, n, m, 64, 0, 1, 'scaled');
  }
}
console.log(`seed ${seed}: ${runs - fails}/${runs} identical`);
