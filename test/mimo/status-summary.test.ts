/**
 * The GPU engine's status summary kernel (src/mimo/gpu/status-summary.cu) in the CUDA emulator:
 * each channel's flags or-ed and nodes summed over its real vectors (64-bit sums, a padded last
 * channel's extra vectors left out), on fresh random status words. Skips where g++ is missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { compileEmulated, emulatorUnavailable, runEmulated } from '../gpu/cuda-emulator.js';

const unavailable = emulatorUnavailable();
const skip = unavailable ? `CUDA emulator unavailable: ${unavailable}` : false;

const MAIN = String.raw`
int main() {
  long long h[3];
  if (fread(h, 8, 3, stdin) != 3) return 1;
  const int channels = (int)h[0], vpc = (int)h[1];
  const long long valid = h[2];
  std::vector<int> status((size_t)channels * vpc * 2), summary((size_t)channels * 4, -7);
  if (fread(status.data(), 4, status.size(), stdin) != status.size()) return 1;
  if (emu_launch((channels + 3) / 4, dim3{128, 1, 1}, 0, [&] { mimo_status_summary(status.data(), summary.data(), channels, vpc, valid); })) return 2;
  fwrite(summary.data(), 4, summary.size(), stdout);
  return 0;
}
`;

test("status summary (emulated): flags or-ed and nodes summed (64-bit) over each channel's real vectors", {
  skip,
}, () => {
  const path = fileURLToPath(new URL('../../src/mimo/gpu/status-summary.cu', import.meta.url));
  const { exe, error } = compileEmulated(MAIN, path, ['-DSUMMARY_WARPS=4']);
  assert.equal(error, null, error ?? '');
  for (let rep = 0; rep < 4; rep++) {
    const channels = 1 + randomInt(300),
      vpc = 1 + randomInt(rep < 2 ? 20 : 80); // past a warp's 32 too
    const valid = channels * vpc - randomInt(vpc); // the last channel may be padded
    const status = new Int32Array(channels * vpc * 2);
    for (let v = 0; v < channels * vpc; v++) {
      status[2 * v] = randomInt(8) === 0 ? 1 << randomInt(5) : 0;
      status[2 * v + 1] = randomInt(4) === 0 ? 2 ** 31 - 1 - randomInt(1000) : randomInt(1 << 20); // sums past 2^32
    }
    const head = new BigInt64Array([BigInt(channels), BigInt(vpc), BigInt(valid)]);
    const input = Buffer.concat([Buffer.from(head.buffer), Buffer.from(status.buffer)]);
    const out = runEmulated(exe, input);
    const got = new Int32Array(out.buffer, out.byteOffset, channels * 4);
    for (let c = 0; c < channels; c++) {
      let flags = 0,
        nodes = 0n;
      for (let k = 0; k < vpc && c * vpc + k < valid; k++) {
        flags |= status[2 * (c * vpc + k)]!;
        nodes += BigInt(status[2 * (c * vpc + k) + 1]!);
      }
      const sum = BigInt(got[4 * c + 2]! >>> 0) + (BigInt(got[4 * c + 3]! >>> 0) << 32n);
      assert.equal(got[4 * c], flags, `channel ${c} flags`);
      assert.equal(got[4 * c + 1], 0, `channel ${c} word 1`);
      assert.equal(sum, nodes, `channel ${c} nodes`);
    }
  }
});
