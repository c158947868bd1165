/**
 * The N-way QR kernel's measurement build (bench/kernels/traced/nway-qr-batch.cu.patch applied to
 * the production qr-batch.cu): QR_STORE_LOOP=1 stores the unsorted records by the block's element
 * loop instead of the staged 16-byte copies. Used by gpu-nway.ts (NwayTuning.qrBuild) and the
 * kernel's emulator test; nothing here ships.
 */
import { readFileSync } from 'node:fs';
import { readKernelSource } from '../../src/gpu/module-cache.js';
import { QR_BATCH_URL } from '../../src/mimo/gpu/preprocess/qr-batch.js';
import { applyPatch } from '../kernels/traced.js';

export function qrStoreLoopBuild(): { source: string; name: string; defines: Readonly<Record<string, number>> } {
  const patch = readFileSync(new URL('../kernels/traced/nway-qr-batch.cu.patch', import.meta.url), 'utf8');
  return {
    source: applyPatch(readKernelSource(QR_BATCH_URL), patch, 'nway-qr-batch.cu.patch'),
    name: 'bench: qr-batch.cu QR_STORE_LOOP=1',
    defines: { QR_STORE_LOOP: 1 },
  };
}
