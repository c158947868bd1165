/**
 * Every code sample of README.md and docs/*.md runs, as a user would run it (stdlib-js keeps its
 * examples running the same way). Each fenced block says what it is:
 *
 * - `ts`, `js`: imports from 'lattice-mimo' are pointed at the compiled package index
 *   (dist/src/index.js), TypeScript is transpiled (typescript's transpileModule), and the sample runs
 *   as an ES module in a child `node` process (top-level await allowed) in an empty temporary
 *   directory. It must exit 0; it asserts nothing of its own. A sample imports only what a user can:
 *   'lattice-mimo' and node's built-ins. The `ts` samples are also type-checked (strict) against the
 *   package's declarations, as a TypeScript user compiles them: the API ignores some misspelt option
 *   keys at run time, the compiler does not.
 * - `sh`: each command line runs in bash (pipefail) in an empty temporary directory, with
 *   `lattice-mimo` on the PATH as `node dist/src/cli/main.js`; it must exit 0. `npm ...` lines are
 *   not run: `npm install` changes node_modules, `npm start` rebuilds the tree the test runs from,
 *   `npm test` is this test's own run.
 * - `console`: a transcript. Lines starting with `$ ` (with `\` continuations) are commands, run as
 *   `sh` lines one after another in one directory; the other lines are their output, shown, not
 *   compared. A command followed by a `^C` line gets SIGINT a second after its first output on
 *   stderr, and may exit 130 (or 0, had it finished).
 * - `text`, `mermaid`: not code (synopses, diagrams, printed output); not run.
 *
 * A fence without one of these languages fails the test, so no sample is left out by accident.
 * A command that needs an external tool missing here (fplll's latticegen) is skipped, saying so.
 * The samples run on the engine present: without a GPU `engine: 'auto'` and hostBatch() take the CPU.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const INDEX = pathToFileURL(join(ROOT, 'dist/src/index.js')).href;
const MAIN = join(ROOT, 'dist/src/cli/main.js');
/** Wall-clock limit of one sample or one command line (a sample is meant to take seconds). */
const SAMPLE_TIMEOUT_MS = 60_000;
/** When a transcript's `^C` comes: this long after the command's first output on stderr (its handlers are set). */
const INTERRUPT_AFTER_MS = 1_000;

const CODE = new Set(['ts', 'js']);
const SHELL = new Set(['sh']);
const TRANSCRIPT = new Set(['console']);
const NOT_RUN = new Set(['text', 'mermaid']);
/** External tools a command may use; one missing skips the command, saying so. */
const EXTERNAL_TOOLS = ['latticegen', 'fplll'];

/** One fenced block: its file, the line of its opening fence (1-based), its language and its text. */
interface Block {
  file: string;
  line: number;
  lang: string;
  code: string;
}

/** The fenced code blocks of a markdown text (backtick or tilde fences, indented up to 3 spaces). */
function fencedBlocks(file: string, text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( {0,3})(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang] = open as unknown as [string, string, string, string];
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(lines[j]!);
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length) break;
      body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!.trimStart());
    }
    blocks.push({ file, line: i + 1, lang: lang.toLowerCase(), code: body.join('\n') });
    i = j;
  }
  return blocks;
}

/** A shell command of a block: its text (continuations joined) and the line it starts on. */
interface Command {
  line: number;
  text: string;
  interrupt: boolean;
}

/** The command lines of an `sh` block, or the `$ ` lines of a `console` transcript. */
function commandsOf(block: Block): Command[] {
  const lines = block.code.split('\n');
  const out: Command[] = [];
  const transcript = TRANSCRIPT.has(block.lang);
  for (let i = 0; i < lines.length; i++) {
    let l = lines[i]!;
    if (transcript) {
      if (!l.startsWith('$ ')) {
        if (l.trim() === '^C' && out.length > 0) out[out.length - 1]!.interrupt = true;
        continue;
      }
      l = l.slice(2);
    }
    if (l.trim() === '' || l.trim().startsWith('#')) continue;
    const start = i;
    let text = l;
    while (text.endsWith('\\') && i + 1 < lines.length) text = `${text.slice(0, -1)}${lines[++i]!.trimStart()}`;
    out.push({ line: block.line + 1 + start, text: text.trim(), interrupt: false });
  }
  return out;
}

/** Why a command is not run, or undefined when it is. */
function notRun(cmd: string): string | undefined {
  if (/^npm\b/.test(cmd))
    return 'npm lines are not run (install changes node_modules, start rebuilds this tree, test is this run)';
  for (const tool of EXTERNAL_TOOLS) {
    if (!new RegExp(`(^|[|;&(]\\s*)${tool}\\b`).test(cmd)) continue;
    const found = spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' });
    if (found.status !== 0) return `${tool} is not installed here (Debian package fplll-tools)`;
  }
  return undefined;
}

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

function runProcess(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; interruptAfterMs?: number },
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    let interrupt: NodeJS.Timeout | undefined;
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (options.interruptAfterMs !== undefined && interrupt === undefined)
        interrupt = setTimeout(() => signal('SIGINT'), options.interruptAfterMs);
    });
    // Signals go to the whole process group (bash and the node it started).
    const signal = (s: NodeJS.Signals): void => {
      try {
        process.kill(-child.pid!, s);
      } catch {
        // the group has ended
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      signal('SIGKILL');
    }, SAMPLE_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      if (interrupt) clearTimeout(interrupt);
      resolve({ code, signal: sig, stdout, stderr, timedOut });
    });
  });
}

function describeFailure(where: string, what: string, r: Ran): string {
  const how = r.timedOut
    ? `did not finish within ${SAMPLE_TIMEOUT_MS / 1000} s`
    : `exited with ${r.code ?? `signal ${r.signal}`}`;
  return `${where}: ${what} ${how}\n--- stderr ---\n${r.stderr.slice(-4000)}\n--- stdout ---\n${r.stdout.slice(-2000)}`;
}

/** The sample as an ES module: 'lattice-mimo' pointed at the compiled index, TypeScript transpiled. */
function compileSample(block: Block, absFile: string): string {
  const imports = [...block.code.matchAll(/\bfrom\s+(['"])([^'"]+)\1|\bimport\s*\(\s*(['"])([^'"]+)\3/g)].map(
    (m) => m[2] ?? m[4]!,
  );
  for (const spec of imports) {
    if (spec !== 'lattice-mimo' && !spec.startsWith('node:'))
      throw new Error(
        `${block.file}:${block.line}: the sample imports '${spec}'; a sample imports what a user can ('lattice-mimo', node:*)`,
      );
  }
  // Blank lines first, so that the source map (and a stack trace) names the markdown file's lines.
  const source = '\n'.repeat(block.line) + block.code.replace(/(['"])lattice-mimo\1/g, `'${INDEX}'`);
  const out = ts.transpileModule(source, {
    fileName: absFile,
    reportDiagnostics: true,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      inlineSourceMap: true,
      inlineSources: true,
      sourceRoot: pathToFileURL(dirname(absFile)).href,
      isolatedModules: true,
    },
  });
  const syntax = (out.diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  if (syntax.length > 0)
    throw new Error(`${block.file}:${block.line}: the sample does not parse: ${syntax.join('; ')}`);
  return out.outputText;
}

/** Where the docs are not beside the build (a packed copy of dist/ alone), there is nothing to run. */
const NO_DOCS = existsSync(join(ROOT, 'docs')) ? false : `no ${join(ROOT, 'docs')} (not a repository checkout)`;
const FILES = NO_DOCS
  ? []
  : [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .sort()
        .map((f) => `docs/${f}`),
    ];
const BLOCKS = FILES.flatMap((f) => fencedBlocks(f, readFileSync(join(ROOT, f), 'utf8')));

test('every fenced block of README.md and docs/*.md says whether it runs (ts, js, sh, console) or not (text, mermaid)', {
  skip: NO_DOCS,
}, () => {
  const unknown = BLOCKS.filter(
    (b) => !CODE.has(b.lang) && !SHELL.has(b.lang) && !TRANSCRIPT.has(b.lang) && !NOT_RUN.has(b.lang),
  );
  assert.deepEqual(
    unknown.map((b) => `${b.file}:${b.line} (${b.lang === '' ? 'no language' : b.lang})`),
    [],
    'fences to tag: ts / js / sh / console to run them, text / mermaid when they are not code',
  );
  assert.ok(
    BLOCKS.some((b) => CODE.has(b.lang)),
    'the docs have code samples (the extraction finds them)',
  );
});

test('the extraction: fences, languages, transcripts and continuations', () => {
  const md = [
    'text',
    '```ts',
    "import { reduce } from 'lattice-mimo';",
    'await reduce(bases);',
    '```',
    '  ~~~console',
    '  $ echo a \\',
    '      b | lattice-mimo detect',
    '  out',
    '  ^C',
    '  ~~~',
    '```',
    'no language',
    '```',
  ].join('\n');
  const blocks = fencedBlocks('x.md', md);
  assert.deepEqual(
    blocks.map((b) => [b.line, b.lang]),
    [
      [2, 'ts'],
      [6, 'console'],
      [12, ''],
    ],
  );
  assert.deepEqual(commandsOf(blocks[1]!), [{ line: 7, text: 'echo a b | lattice-mimo detect', interrupt: true }]);
  assert.match(compileSample(blocks[0]!, '/x.md'), /dist\/src\/index\.js/);
  assert.throws(
    () => compileSample({ file: 'x.md', line: 1, lang: 'ts', code: "import { x } from './src/index.js';" }, '/x.md'),
    /imports '\.\/src\/index\.js'/,
  );
});

for (const block of BLOCKS) {
  const where = `${block.file}:${block.line}`;
  if (CODE.has(block.lang)) {
    test(`${where} (${block.lang}) runs`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'lm-doc-sample-'));
      try {
        const file = join(dir, 'sample.mjs');
        await writeFile(file, compileSample(block, join(ROOT, block.file)));
        const r = await runProcess(process.execPath, ['--enable-source-maps', file], { cwd: dir });
        assert.ok(r.code === 0, describeFailure(where, `the ${block.lang} sample`, r));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  } else if (SHELL.has(block.lang) || TRANSCRIPT.has(block.lang)) {
    const commands = commandsOf(block);
    const skips = commands.map((c) => notRun(c.text));
    const skip = skips.every((s) => s !== undefined) ? [...new Set(skips)].join('; ') || 'no command' : false;
    test(`${where} (${block.lang}) runs`, { skip }, async (t) => {
      const dir = await mkdtemp(join(tmpdir(), 'lm-doc-shell-'));
      try {
        const bin = join(dir, '.bin');
        await mkdir(bin);
        const shim = join(bin, 'lattice-mimo');
        await writeFile(shim, `#!/bin/sh\nexec "${process.execPath}" "${MAIN}" "$@"\n`);
        await chmod(shim, 0o755);
        const env = { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` };
        for (const [i, c] of commands.entries()) {
          const why = skips[i];
          if (why !== undefined) {
            t.diagnostic(`${block.file}:${c.line} not run: ${why}`);
            continue;
          }
          const r = await runProcess('bash', ['-o', 'pipefail', '-c', c.text], {
            cwd: dir,
            env,
            ...(c.interrupt ? { interruptAfterMs: INTERRUPT_AFTER_MS } : {}),
          });
          const ok = r.code === 0 || (c.interrupt && r.code === 130);
          assert.ok(ok, describeFailure(`${block.file}:${c.line}`, `\`${c.text}\``, r));
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
}

test('the ts samples type-check against the package declarations (strict, as a TypeScript user compiles them)', () => {
  const samples = BLOCKS.filter((b) => b.lang === 'ts');
  // Virtual files in the package root: 'lattice-mimo' resolves to dist/src/index.d.ts by the package's self-reference.
  const files = new Map(
    samples.map(
      (b, i) => [join(ROOT, `.doc-sample-${i}.ts`), `${'\n'.repeat(b.line)}${b.code}\nexport {};\n`] as const,
    ),
  );
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts'],
    types: ['node'],
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) => {
    const text = files.get(name);
    return text === undefined ? getSourceFile(name, language, ...rest) : ts.createSourceFile(name, text, language);
  };
  host.fileExists = (name) => files.has(name) || fileExists(name);
  host.readFile = (name) => files.get(name) ?? readFile(name);
  const program = ts.createProgram([...files.keys()], options, host);
  const names = [...files.keys()];
  const problems = ts.getPreEmitDiagnostics(program).map((d) => {
    const i = d.file ? names.indexOf(d.file.fileName) : -1;
    const where =
      i >= 0 && d.start !== undefined
        ? `${samples[i]!.file}:${d.file!.getLineAndCharacterOfPosition(d.start).line + 1}`
        : (d.file?.fileName ?? 'options');
    return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
  assert.deepEqual(problems, []);
});
