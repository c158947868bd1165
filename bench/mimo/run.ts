/**
 * `lattice-mimo bench mimo`: CPU throughput (vectors/s, one thread) of every detector on the same
 * inputs, and IT++'s sphere_decoding beside ours where IT++ is installed. Writes the table to
 * stdout and, with --out, into bench/RESULTS.md (section `bench-mimo`) with device, date and commit.
 */
import { parseArgs } from 'node:util';
import { cpuDescription, gitCommit, median, writeResultsSection } from '../report.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { Philox } from '../../src/core/rng.js';
import { addNoise, randomSymbols, snrToNoiseVar, transmit } from '../../src/mimo/channel.js';
import { rayleighChannels } from '../../src/channels/index.js';
import { detect } from '../../src/mimo/detect.js';
import { itppAvailability, itppSphere } from '../reference/itpp.js';
import { bitsPerSymbolOf, parseModulation } from '../../src/mimo/modulation.js';
import { DETECTORS } from '../../src/mimo/registry.js';
import type { DetectionInput, Detector, Modulation } from '../../src/mimo/types.js';

const HELP = `usage: lattice-mimo bench mimo [options]

  --mimo NTxNR            antennas (default 4x4)
  --mod MOD               modulation (default 16qam)
  --snr LIST              Es/N0 values in dB (default 10,20)
  --detector LIST         detectors (default: all; ml gets a tenth of the vectors)
  --vectors N             vectors per measurement (default 8400, an LTE slot)
  --vectors-per-channel LIST   channel reuse (default 1,14)
  --reps N                repetitions, the median is reported (default 3)
  --no-itpp               skip IT++'s sphere_decoding
  --seed S                seed (default 1)
  --out FILE              also write the table into FILE (e.g. bench/RESULTS.md)

  --engine cuda           the GPU tables instead (bench/mimo/gpu-tables.ts): the PSD and N-way
                          papers' tables and a 5G NR slot, our figures beside theirs
  --tables LIST           with --engine cuda: psd,nway,slot,detectors (default all)
  --no-cpu                with --engine cuda: skip the CPU engine (all cores) column`;

function makeInput(
  nt: number,
  nr: number,
  mod: Modulation,
  snrDb: number,
  vectors: number,
  vpc: number,
  seed: number,
  stream: number,
): DetectionInput {
  const rng = new Philox(seed, stream);
  const H = rayleighChannels(rng, Math.ceil(vectors / vpc), nt, nr);
  const { symbols } = randomSymbols(rng, vectors * nt, mod);
  const noiseVar = snrToNoiseVar(snrDb, 'esn0', bitsPerSymbolOf(mod));
  const y = addNoise(rng, transmit(H, symbols, nt, nr, vpc), noiseVar);
  return { nt, nr, H, y, vectorsPerChannel: vpc, noiseVar };
}

function intList(s: string, what: string): number[] {
  const v = s.split(',').map(Number);
  if (v.some((x) => !Number.isInteger(x) || x < 1))
    throw new InvalidArgumentError(`${what} must be a comma list of positive integers, got '${s}'`);
  return v;
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      mimo: { type: 'string', default: '4x4' },
      mod: { type: 'string', default: '16qam' },
      snr: { type: 'string', default: '10,20' },
      detector: { type: 'string' },
      vectors: { type: 'string', default: '8400' },
      'vectors-per-channel': { type: 'string', default: '1,14' },
      reps: { type: 'string', default: '3' },
      'no-itpp': { type: 'boolean' },
      seed: { type: 'string', default: '1' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      engine: { type: 'string', default: 'cpu' },
      tables: { type: 'string', default: 'psd,nway,slot,detectors' },
      'no-cpu': { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (values.engine !== 'cpu' && values.engine !== 'cuda')
    throw new InvalidArgumentError(`--engine must be cpu or cuda, got '${values.engine}'`);
  if (values.engine === 'cuda') {
    const tables = values.tables!.split(',');
    const known = ['psd', 'nway', 'slot', 'detectors'] as const;
    for (const t of tables)
      if (!(known as readonly string[]).includes(t))
        throw new InvalidArgumentError(`unknown table '${t}' (expected: ${known.join(', ')})`);
    const [reps] = intList(values.reps!, '--reps');
    const { runGpuTables } = await import('./gpu-tables.js');
    return runGpuTables({
      tables: tables as (typeof known)[number][],
      reps: reps!,
      seed: Number(values.seed),
      noCpu: !!values['no-cpu'],
      ...(values.out ? { out: values.out } : {}),
    });
  }
  const m = /^(\d+)x(\d+)$/.exec(values.mimo!);
  if (!m) throw new InvalidArgumentError(`--mimo must be NTxNR, e.g. 4x4, got '${values.mimo}'`);
  const nt = Number(m[1]),
    nr = Number(m[2]);
  const mod = parseModulation(values.mod!);
  const snrs = values.snr!.split(',').map(Number);
  if (snrs.some((s) => !Number.isFinite(s)))
    throw new InvalidArgumentError(`--snr must be a comma list of dB values, got '${values.snr}'`);
  const detectors = (values.detector ? values.detector.split(',') : [...DETECTORS]) as Detector[];
  for (const d of detectors)
    if (!DETECTORS.includes(d))
      throw new InvalidArgumentError(`unknown detector '${d}' (expected one of: ${DETECTORS.join(', ')})`);
  const [vectors] = intList(values.vectors!, '--vectors');
  const vpcs = intList(values['vectors-per-channel']!, '--vectors-per-channel');
  const [reps] = intList(values.reps!, '--reps');
  const seed = Number(values.seed);
  const itpp = values['no-itpp'] ? { ok: false as const, reason: 'skipped (--no-itpp)' } : itppAvailability();

  const header = `| detector | ${snrs.flatMap((s) => vpcs.map((v) => `${s} dB, ${v}/ch`)).join(' | ')} |`;
  const rows: string[] = [header, `|---|${snrs.flatMap(() => vpcs.map(() => '---')).join('|')}|`];
  const cell = (vps: number, ser: number) =>
    `${vps >= 1e5 ? `${(vps / 1e3).toFixed(0)}k` : vps >= 1e3 ? `${(vps / 1e3).toFixed(1)}k` : vps.toFixed(0)} (SER ${ser.toExponential(1)})`;
  const names = [...detectors, ...(itpp.ok ? ['itpp-sphere'] : [])];
  for (const name of names) {
    const cells: string[] = [];
    for (const [si, snr] of snrs.entries())
      for (const vpc of vpcs) {
        const count = name === 'ml' ? Math.max(vpc, Math.round(vectors! / 10 / vpc) * vpc) : vectors!;
        const input = makeInput(nt, nr, mod, snr, count, vpc, seed, si * 1000 + vpc);
        const times: number[] = [];
        let symbols: Int32Array | undefined;
        for (let r = 0; r <= reps!; r++) {
          // r = 0 is the warm-up
          const t0 = performance.now();
          symbols =
            name === 'itpp-sphere'
              ? itppSphere(input, mod, { rmax: 1e4, timeoutMs: 600_000 }).symbols
              : detect(input, { detector: name as Detector, modulation: mod }).symbols;
          if (r > 0) times.push(performance.now() - t0);
        }
        // symbol error rate against the transmitted symbols (regenerated from the same stream)
        const rng = new Philox(seed, si * 1000 + vpc);
        rayleighChannels(rng, Math.ceil(count / vpc), nt, nr);
        const sent = randomSymbols(rng, count * nt, mod).indices;
        let errors = 0;
        for (let i = 0; i < sent.length; i++) if (sent[i] !== symbols![i]) errors++;
        const vps = count / (median(times) / 1000);
        cells.push(cell(vps, errors / sent.length));
        process.stderr.write(`[bench mimo] ${name} ${snr} dB ${vpc}/channel: ${vps.toFixed(0)} vectors/s\n`);
      }
    rows.push(`| ${name} | ${cells.join(' | ')} |`);
  }
  const section = [
    `## MIMO detection throughput, CPU (${nt}x${nr} ${mod}, Es/N0), ${new Date().toISOString().slice(0, 10)}`,
    '',
    `- Device: ${cpuDescription()}; one thread (detect() in this process)`,
    `- Commit: ${gitCommit()}; command: \`lattice-mimo bench mimo ${argv.join(' ')}\``,
    `- ${vectors} vectors per measurement (ml: a tenth), iid Rayleigh channels, each shared by the stated number of vectors; median of ${reps} runs after a warm-up; vectors/s with the symbol error rate beside it.`,
    `- itpp-sphere: IT++'s sphere_decoding (ND_UPAM on the real system) through the harness, timed inside its calls; ${itpp.ok ? 'included' : `not run: ${itpp.reason}`}.`,
    '',
    ...rows,
  ].join('\n');
  process.stdout.write(`${section}\n`);
  if (values.out) writeResultsSection(values.out, 'bench-mimo', section);
  return 0;
}
