/**
 * The CDL models on the GPU: cdl-rays.cu draws each (drop, cluster)'s ray couplings and phases from
 * the CPU's Philox words, cdl-clusters.cu sums each (drop, time, delay slot)'s rays into an nr x nt
 * matrix, and the TDL models' tdl-grid.cu sums the slots at each frequency. Everything that needs a
 * sine, cosine, power or square root (the setup, each end's fields and steering phases per pairing
 * of a cluster's offsets, the phase tables, the Doppler turns per pairing and time, the slots'
 * rotations per frequency) is computed on the host by the CPU generator's own functions, and the
 * kernels repeat the CPU's arithmetic operation for operation: float64 equals the CPU's bit for bit,
 * float32 is that rounded. draw() is the response at time and frequency 0, as on the CPU.
 */
import { type CudaContext, loadModule, readKernelSource, type Stream } from '../../gpu/index.js';
import { DeviceScratch } from '../device-scratch.js';
import { DeviceUploads, pointTables, selectivePlan, tapSumStage } from '../selective-plan.js';
import { checkSpan } from '../span.js';
import type {
  ChannelBuffers,
  ChannelCuda,
  ChannelCudaPlan,
  ChannelShape,
  ChannelSpan,
  ResponsePoints,
} from '../types.js';
import { type CdlLosParams, cdlSetup, checkPoints, RAYS } from './cpu.js';
import { cdlDeviceTables, cdlPointTables } from './device-tables.js';
import { CDL_TABLES, type CdlModel } from './tables.js';

const RAYS_BLOCK = 64;
const CLUSTERS_BLOCK = 128;

/** The CUDA side of one CDL model. */
export function cdlCuda(name: CdlModel): ChannelCuda<CdlLosParams> {
  return {
    plan(ctx: CudaContext, shape: ChannelShape, params: CdlLosParams): ChannelCudaPlan {
      const { nt, nr } = shape;
      const E = nr * nt;
      const m = cdlSetup(shape, CDL_TABLES[name], params);
      const los = m.table.los ? 1 : 0;
      const slots = m.clusters + los;
      const raysKernel = loadModule(ctx, {
        source: readKernelSource(new URL('./cdl-rays.cu', import.meta.url)),
        name: 'channels/cdl/cdl-rays.cu',
        defines: { CDL_BLOCK: RAYS_BLOCK },
      }).kernel('cdl_rays', ['ptr', 'ptr', 'ptr', 'i64', 'i64', 'i64', 'i64', 'i64', 'i32', 'i32', 'i32', 'f64']);
      const clustersKernel = loadModule(ctx, {
        source: readKernelSource(new URL('./cdl-clusters.cu', import.meta.url)),
        name: 'channels/cdl/cdl-clusters.cu',
        defines: { CDL_BLOCK: CLUSTERS_BLOCK },
      }).kernel('cdl_clusters', [
        'ptr',
        'ptr',
        'ptr',
        'ptr',
        'ptr',
        'ptr',
        'ptr',
        'ptr',
        'ptr',
        'ptr',
        'ptr',
        'ptr',
        'i32',
        'i32',
        'i32',
        'i32',
        'i32',
        'i32',
        'i32',
        'i32',
      ]);
      const tapSum = tapSumStage(ctx);
      const uploads = new DeviceUploads(ctx);
      const upload = (a: Float64Array) => uploads.upload(a);
      const d = cdlDeviceTables(m);
      const tables = {
        phase: upload(d.phase),
        rxField: upload(d.rxField),
        rxSteer: upload(d.rxSteer),
        txField: upload(d.txField),
        txSteer: upload(d.txSteer),
        amp: upload(d.amp),
        rxSlant: upload(d.rxSlant),
        txSlant: upload(d.txSlant),
        losG: upload(d.losG),
      };
      const rayIdx = new DeviceScratch(ctx),
        rayM = new DeviceScratch(ctx),
        A = new DeviceScratch(ctx);
      const pointsOf = pointTables((at) => {
        const t = cdlPointTables(m, at);
        return { turns: upload(t.turns), rot: upload(t.rot) };
      });
      const response = (stream: Stream, span: ChannelSpan, at: ResponsePoints, b: ChannelBuffers): void => {
        checkPoints(at);
        checkSpan(span);
        const T = at.times.length,
          F = at.freqs.length;
        if (span.count === 0 || T === 0 || F === 0) return;
        const p = pointsOf(at);
        const rays = span.count * m.clusters * RAYS;
        const idx = rayIdx.at(rays * 8),
          M = rayM.at(rays * 64);
        if (m.clusters > 0) {
          const threads = span.count * m.clusters;
          raysKernel.launch({ grid: Math.ceil(threads / RAYS_BLOCK), block: RAYS_BLOCK, stream }, [
            idx,
            M,
            tables.phase.ptr,
            span.seed,
            span.stream0,
            span.streamStep,
            span.perStream,
            span.first,
            span.count,
            m.clusters,
            m.single ? 1 : 0,
            m.cross,
          ]);
        }
        const a = A.at(span.count * T * slots * E * 16);
        const matrices = span.count * T * slots * E;
        clustersKernel.launch({ grid: Math.ceil(matrices / CLUSTERS_BLOCK), block: CLUSTERS_BLOCK, stream }, [
          a,
          idx,
          M,
          tables.rxField.ptr,
          tables.rxSteer.ptr,
          tables.txField.ptr,
          tables.txSteer.ptr,
          tables.amp.ptr,
          tables.rxSlant.ptr,
          tables.txSlant.ptr,
          los ? tables.losG.ptr : 0n,
          p.turns.ptr,
          span.count,
          T,
          m.clusters,
          los,
          nr,
          nt,
          m.single ? 1 : 0,
          m.still ? 1 : 0,
        ]);
        tapSum.enqueue(stream, b, a, p.rot.ptr, { count: span.count, T, F, slots: slots, E });
      };
      return selectivePlan(response, () => {
        uploads.free();
        rayIdx.free();
        rayM.free();
        A.free();
      });
    },
  };
}
