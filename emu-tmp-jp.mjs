import { execFileSync } from 'node:child_process';
import { jacobiParallelCpu } from './.build/gpu/src/lattice/jacobi-parallel/cpu.js';
import { Philox } from './.build/gpu/src/core/rng.js';
const seed = Number(process.argv[2] ?? Date.now() % 1e9);
const rng = new Philox(seed, 7);
const p = { delta: 0.75, eta: 0.51, blockSize: 8, maxIterations: 500 };
let fails = 0, runs = 0;
for (const prec of ['float64', 'float32']) {
  for (const [n, m, nt, gs, zs] of [[4,4,32,1,1],[6,5,64,0,1],[9,7,32,1,0],[12,12,64,0,0],[16,16,96,1,1],[20,13,64,1,1],[3,1,32,1,1],[2,2,32,1,1]]) {
    const batch = 3;
    const A = prec === 'float32' ? Float32Array : Float64Array;
    const data = new A(batch * n * m);
    for (let i = 0; i < data.length; i++) data[i] = rng.normal() * (prec === 'float32' ? 1 : 100);
    const hdr = new Int32Array([batch, n, m, p.maxIterations, nt, gs, zs]);
    const input = Buffer.concat([Buffer.from(hdr.buffer), Buffer.from(data.buffer)]);
    const out = execFileSync(`/tmp/emu/jp_${prec === 'float32' ? 'float' : 'double'}`, { input, maxBuffer: 1 << 26 });
    const eb = A.BYTES_PER_ELEMENT;
    const Bo = new A(out.buffer.slice(out.byteOffset, out.byteOffset + batch*n*m*eb));
    let off = out.byteOffset + batch*n*m*eb;
    const Zo = new Float64Array(out.buffer.slice(off, off + batch*m*m*8)); off += batch*m*m*8;
    const st = new Int32Array(out.buffer.slice(off, off + batch*5*4));
    for (let b = 0; b < batch; b++) {
      runs++;
      const B = data.slice(b*n*m, (b+1)*n*m); const Z = new Float64Array(m*m); for (let i=0;i<m;i++) Z[i+i*m]=1;
      const s = jacobiParallelCpu(B, Z, n, m, p);
      const zg = Zo.subarray(b*m*m, (b+1)*m*m), bg = Bo.subarray(b*n*m,(b+1)*n*m);
      const zeq = zg.every((v,i)=>v===Z[i]), beq = bg.every((v,i)=>Object.is(v,B[i]));
      const sg = Array.from(st.subarray(b*5,b*5+5));
      const seq = sg[0]===s.iterations && sg[1]===s.swaps && sg[2]===s.sizeReductions && sg[3]===0;
      if (!zeq || !beq || !seq) { fails++; console.log('MISMATCH', {prec,n,m,nt,gs,zs,b, zeq, beq, cpu: s, gpu: sg}); }
    }
  }
}
console.log(`seed ${seed}: ${runs - fails}/${runs} identical`);
