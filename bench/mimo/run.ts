/**
 * `lattice-mimo bench mimo`: CPU throughput (vectors/s, one thread) of every detector on the same
 * inputs, and IT++'s sphere_decoding beside ours where IT++ is installed. Writes the table to
 * stdout and, with --out, into bench/RESULTS.md (section `bench-mimo`) with device, date and commit.
 */
import { cpuDescription, gitCommit, median, writeResultsSection } from '../report.js';
import { choiceOption, parseCommandLine, rejectInapplicable } from '../../src/cli/args.js';
import { checkSnrNumbers, intListOption, intOption } from '../../src/cli/values.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { checkOutputPath } from '../../src/core/io.js';
import { parseMimo } from '../../src/cli/mimo-values.js';
import { parseSnrList } from '../../src/sim/snr.js';
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
  --snr LIST              Es/N0 values in dB, a comma list or start:step:stop (default 10,20)
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

export async function run(argv: string[]): Promise<number> {
  // the CLI's own argument layer and value parsers (src/cli): negative SNRs as values, decimal numbers only
  const { values, given } = parseCommandLine(
    argv,
    {
      mimo: { type: 'string' },
      mod: { type: 'string' },
      snr: { type: 'string' },
      detector: { type: 'string' },
      vectors: { type: 'string' },
      'vectors-per-channel': { type: 'string' },
      reps: { type: 'string' },
      'no-itpp': { type: 'boolean' },
      seed: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      engine: { type: 'string' },
      tables: { type: 'string' },
      'no-cpu': { type: 'boolean' },
    } as const,
    { command: 'bench mimo' },
  );
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const engine = choiceOption('engine', values.engine, ['cpu', 'cuda'] as const, 'cpu');
  rejectInapplicable(given, ['tables', 'no-cpu'], engine === 'cuda', 'the GPU tables are chosen with --engine cuda');
  rejectInapplicable(
    given,
    ['mimo', 'mod', 'snr', 'detector', 'vectors', 'vectors-per-channel', 'no-itpp'],
    engine === 'cpu',
    "the GPU tables have their own sizes (the papers' and a 5G NR slot)",
  );
  const reps = intOption('reps', values.reps, 3, 1, 10_000);
  const seed = intOption('seed', values.seed, 1, 0);
  if (values.out !== undefined) checkOutputPath('out', values.out);
  if (engine === 'cuda') {
    const known = ['psd', 'nway', 'slot', 'detectors'] as const;
    const tables = (values.tables ?? known.join(',')).split(',');
    for (const t of tables)
      if (!(known as readonly string[]).includes(t))
        throw new InvalidArgumentError(`unknown table '${t}' (expected: ${known.join(', ')})`);
    const { runGpuTables } = await import('./gpu-tables.js');
    return runGpuTables({
      tables: tables as (typeof known)[number][],
      reps,
      seed,
      noCpu: !!values['no-cpu'],
      ...(values.out ? { out: values.out } : {}),
    });
  }
  const { nt, nr } = parseMimo(values.mimo ?? '4x4');
  const mod = parseModulation(values.mod ?? '16qam');
  const snrText = values.snr ?? '10,20';
  checkSnrNumbers('snr', snrText);
  const snrs = parseSnrList(snrText);
  const detectors = (values.detector ? values.detector.split(',') : [...DETECTORS]) as Detector[];
  for (const d of detectors)
    if (!DETECTORS.includes(d))
      throw new InvalidArgumentError(`unknown detector '${d}' (expected one of: ${DETECTORS.join(', ')})`);
  const vectors = intOption('vectors', values.vectors, 8400, 1, 10_000_000);
  const vpcs = intListOption('vectors-per-channel', values['vectors-per-channel'] ?? '1,14', 1, 1 << 20);
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
        const count = name === 'ml' ? Math.max(vpc, Math.round(vectors / 10 / vpc) * vpc) : vectors;
        const input = makeInput(nt, nr, mod, snr, count, vpc, seed, si * 1000 + vpc);
        const times: number[] = [];
        let symbols: Int32Array | undefined;
        for (let r = 0; r <= reps; r++) {
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
