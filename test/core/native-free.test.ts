/**
 * The CPU engine loads no native code: a process that imports the package and runs its CPU paths
 * (lattice reduction on this thread and on workers, every detector, simulations with their plots,
 * LDPC decoding) maps no native addon. Engine 'auto' loads none either on a machine without a CUDA
 * device. And many worker threads started and ended in one run end cleanly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const probe = fileURLToPath(new URL('./native-free-probe.js', import.meta.url));
const cli = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const linux = existsSync('/proc/self/maps');

function runProbe(engine: 'cpu' | 'auto', env: NodeJS.ProcessEnv = process.env): { addons: string[]; device: boolean } {
  const r = spawnSync(process.execPath, [probe, engine], { encoding: 'utf8', timeout: 600_000, env });
  assert.equal(r.status, 0, `the probe failed (${r.status ?? r.signal}):\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as { addons: string[]; device: boolean };
}

test('engine cpu: importing the package and running every CPU path maps no native addon', {
  skip: !linux && 'no /proc/self/maps to read the loaded libraries from',
}, () => {
  const { addons } = runProbe('cpu');
  assert.deepEqual(addons, [], `native addons loaded on the CPU path: ${addons.join(', ')}`);
});

test('engine cpu maps no native addon where a driver is installed either: nothing on its path asks for a device', {
  skip: !linux && 'no /proc/self/maps to read the loaded libraries from',
}, () => {
  // LATTICE_MIMO_LIBCUDA skips the no-driver shortcut: any device probe would load the bindings
  const { addons } = runProbe('cpu', { ...process.env, LATTICE_MIMO_LIBCUDA: '/nonexistent/libcuda.so.1' });
  assert.deepEqual(addons, [], `native addons loaded on the CPU path with a driver present: ${addons.join(', ')}`);
});

test('engine auto without a CUDA device maps no native addon either', {
  skip: !linux && 'no /proc/self/maps to read the loaded libraries from',
}, (t) => {
  const { addons, device } = runProbe('auto');
  if (device) {
    t.skip('a CUDA device answers here: auto ran on it and loaded the bindings, as it should');
    return;
  }
  assert.deepEqual(addons, [], `native addons loaded with engine auto and no device: ${addons.join(', ')}`);
});

test('simulate --threads 64 starts and ends 64 workers cleanly, three runs in a row', () => {
  for (let run = 0; run < 3; run++) {
    // 64 chunks of 4 vectors: every worker of the pool starts
    const args = ['simulate', '--mimo', '2x2', '--detector', 'zf', '--snr', '0', '--max-errors', '1000000'];
    const s = spawnSync(
      process.execPath,
      [cli, ...args, '--max-vectors', '256', '--unit-vectors', '4', '--threads', '64', '--json', '-'],
      { encoding: 'utf8', timeout: 300_000 },
    );
    assert.equal(s.status, 0, `run ${run}: exit ${s.status ?? s.signal}\n${s.stderr.slice(-2000)}`);
    const out = JSON.parse(s.stdout) as { points: { vectors: number }[] };
    assert.equal(out.points[0]!.vectors, 256, `run ${run}: every chunk counted`);
  }
});
