/**
 * A sharded sweep under a real scheduler: a single-node Slurm (Debian's slurm-wlm and munge) is
 * started here with a generated slurm.conf, the sweep submitted as an array job whose tasks take
 * their shard from Slurm (--shard auto) and share a directory, the merge as a job depending on the
 * array; the merged counts must equal one process's. Skipped, saying why, where Slurm or munge is
 * not installed or cannot start (not root, no such daemons).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simulate } from '../../src/sim/simulate.js';
import type { SimPoint, SimulationResult } from '../../src/sim/types.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const DAEMONS = ['/usr/sbin/munged', '/usr/sbin/slurmctld', '/usr/sbin/slurmd'];

/** Why the test cannot run here, or null. */
function missing(): string | null {
  const absent = DAEMONS.filter((d) => !existsSync(d));
  if (absent.length > 0) return `not installed: ${absent.join(', ')} (apt-get install slurm-wlm munge)`;
  if (process.getuid?.() !== 0) return 'munged and slurmd run as root here, and this process is not root';
  return null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs a Slurm client command against our slurm.conf; its stdout, or null when it fails. */
function slurm(conf: string, cmd: string, args: string[]): string | null {
  try {
    return execFileSync(cmd, args, { env: { ...process.env, SLURM_CONF: conf }, encoding: 'utf8', timeout: 10_000 });
  } catch {
    return null;
  }
}

/** Waits until `ok()` holds, polling; false past `ms`. */
async function until(ok: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await ok()) return true;
    await sleep(250);
  }
  return false;
}

const counts = (p: SimPoint) => {
  const { timeMs: _t, ...rest } = p;
  return rest;
};

test("Slurm: an array job of shards and a merge job after it give one process's counts", {
  timeout: 90_000,
}, async (t) => {
  const why = missing();
  if (why) {
    t.skip(`Slurm test skipped: ${why}`);
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), 'slurm-'));
  const procs: ChildProcess[] = [];
  const start = (cmd: string, args: string[], log: string) => {
    const p = spawn(cmd, args, {
      stdio: ['ignore', 'ignore', 'ignore'],
      env: { ...process.env, SLURM_CONF: join(dir, 'slurm.conf') },
    });
    p.on('error', () => {});
    procs.push(p);
    return { p, log };
  };
  try {
    for (const d of ['state', 'spool', 'out/progress']) await mkdir(join(dir, d), { recursive: true });
    const key = join(dir, 'munge.key'),
      sock = join(dir, 'munge.sock');
    await writeFile(key, randomBytes(128));
    await chmod(key, 0o600);
    start(
      '/usr/sbin/munged',
      [
        '-F',
        '-f',
        `--key-file=${key}`,
        `--socket=${sock}`,
        `--pid-file=${join(dir, 'munged.pid')}`,
        `--log-file=${join(dir, 'munged.log')}`,
        `--seed-file=${join(dir, 'munge.seed')}`,
      ],
      'munged.log',
    );
    if (!(await until(() => existsSync(sock), 10_000))) {
      t.skip('Slurm test skipped: munged did not start (its socket never appeared)');
      return;
    }
    const host = hostname().split('.')[0]!;
    const port = 20_000 + 2 * randomInt(10_000);
    const conf = join(dir, 'slurm.conf');
    await writeFile(
      conf,
      [
        'ClusterName=lmtest',
        `SlurmctldHost=${host}`,
        `SlurmctldPort=${port}`,
        `SlurmdPort=${port + 1}`,
        'AuthType=auth/munge',
        `AuthInfo=socket=${sock}`,
        'CredType=cred/munge',
        'SlurmUser=root',
        'SlurmdUser=root',
        `StateSaveLocation=${join(dir, 'state')}`,
        `SlurmdSpoolDir=${join(dir, 'spool')}`,
        `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
        `SlurmdPidFile=${join(dir, 'slurmd.pid')}`,
        `SlurmctldLogFile=${join(dir, 'slurmctld.log')}`,
        `SlurmdLogFile=${join(dir, 'slurmd.log')}`,
        'ProctrackType=proctrack/linuxproc',
        'TaskPlugin=task/none',
        'JobAcctGatherType=jobacct_gather/none',
        'AccountingStorageType=accounting_storage/none',
        'SelectType=select/cons_tres',
        'SelectTypeParameters=CR_CPU',
        'MpiDefault=none',
        'ReturnToService=2',
        `NodeName=${host} CPUs=2 State=UNKNOWN`,
        `PartitionName=debug Nodes=${host} Default=YES MaxTime=INFINITE State=UP`,
        '',
      ].join('\n'),
    );
    start('/usr/sbin/slurmctld', ['-D', '-i', '-f', conf], 'slurmctld.log');
    start('/usr/sbin/slurmd', ['-D', '-f', conf, '-N', host], 'slurmd.log');
    if (!(await until(() => /idle|mix|alloc/.test(slurm(conf, 'sinfo', ['-h', '-o', '%T']) ?? ''), 20_000))) {
      t.skip(`Slurm test skipped: slurmctld and slurmd did not come up (see their logs in ${dir})`);
      return;
    }
    const seed = randomInt(2 ** 31);
    const run = [
      '--mimo',
      '2x2',
      '--detector',
      'zf,mmse',
      '--snr',
      '0,8',
      '--max-errors',
      '300',
      '--max-vectors',
      '200000',
      '--unit-vectors',
      '256',
      '--seed',
      String(seed),
      '--threads',
      '1',
    ];
    const out = join(dir, 'out');
    const task = join(dir, 'task.sh');
    const shards = 4;
    await writeFile(
      task,
      `#!/bin/sh\nexec ${process.execPath} ${MAIN} simulate ${run.join(' ')} --shard auto --shard-dir ${out}/progress --json ${out}/shard-$SLURM_ARRAY_TASK_ID.json\n`,
    );
    await chmod(task, 0o755);
    const array = slurm(conf, 'sbatch', [
      '--parsable',
      `--array=0-${shards - 1}`,
      `--output=${out}/task-%a.log`,
      task,
    ])?.trim();
    assert.ok(array, 'sbatch of the array');
    const merge = slurm(conf, 'sbatch', [
      '--parsable',
      `--dependency=afterok:${array}`,
      `--output=${out}/merge.log`,
      '--wrap',
      `${process.execPath} ${MAIN} merge ${out}/shard-*.json --json ${out}/run.json`,
    ])?.trim();
    assert.ok(merge, 'sbatch of the merge');
    const one = await simulate({
      nt: 2,
      nr: 2,
      modulation: 'qpsk',
      detectors: [{ detector: 'zf' }, { detector: 'mmse' }],
      snrs: [0, 8],
      maxErrors: 300,
      maxVectors: 200_000,
      unitVectors: 256,
      seed,
      threads: 1,
      engine: 'cpu',
    });
    const done = await until(
      () => existsSync(join(out, 'run.json')) && (slurm(conf, 'squeue', ['-h']) ?? 'x').trim() === '',
      60_000,
    );
    const logs = async () => {
      const names = ['merge.log', ...Array.from({ length: shards }, (_, k) => `task-${k}.log`)];
      const texts = await Promise.all(names.map((n) => readFile(join(out, n), 'utf8').catch(() => '(none)')));
      return names.map((n, i) => `${n}: ${texts[i]!.slice(-400)}`).join('\n');
    };
    assert.ok(done, `the jobs did not finish within 60 s:\n${await logs()}`);
    const merged = JSON.parse(await readFile(join(out, 'run.json'), 'utf8')) as SimulationResult;
    assert.deepEqual(merged.points.map(counts), one.points.map(counts), `seed ${seed}\n${await logs()}`);
    t.diagnostic(
      `Slurm array ${array} (${shards} shards) and merge ${merge}: counts equal one process's (seed ${seed})`,
    );
  } finally {
    for (const p of procs.reverse()) p.kill('SIGTERM');
    await sleep(500);
    for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});
