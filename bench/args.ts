/**
 * The command line of the bench scripts that take `--name value` options: the CLI's own parser
 * (src/cli/args.ts: unknown options, missing values and positionals are refused; a value may start
 * with '-', so `--ebn0 -1` works as in every subcommand) and the range and list checks the scripts
 * share. Any bad word prints `<script>: <problem>` and the script's usage line to stderr and exits
 * with status 2.
 */
import { parseCommandLine } from '../src/cli/args.js';
import { parseDecimal, parseInteger } from '../src/cli/values.js';
import { InvalidArgumentError } from '../src/core/errors.js';

export class BenchArgs {
  private constructor(
    private readonly script: string,
    private readonly usage: string,
    private readonly values: Readonly<Record<string, string | boolean | undefined>>,
  ) {}

  /**
   * Parses argv (default: this process's words after the script) against the options `names`, which
   * take a value, and the switches `flags`, which take none.
   */
  static parse(
    script: string,
    usage: string,
    names: readonly string[],
    argv: readonly string[] = process.argv.slice(2),
    flags: readonly string[] = [],
  ): BenchArgs {
    try {
      const options = Object.fromEntries([
        ...names.map((n) => [n, { type: 'string' as const }] as const),
        ...flags.map((n) => [n, { type: 'boolean' as const }] as const),
      ]);
      const { values } = parseCommandLine(argv, options, { command: script, help: 'the usage line below' });
      return new BenchArgs(script, usage, values as Record<string, string | boolean | undefined>);
    } catch (err) {
      if (err instanceof InvalidArgumentError) fail(script, usage, err.message);
      throw err;
    }
  }

  /** Prints the problem and the usage line; exits with status 2. */
  fail(msg: string): never {
    return fail(this.script, this.usage, msg);
  }

  text(name: string, fallback: string): string {
    return this.str(name) ?? fallback;
  }

  /** Whether switch `name` was given. */
  flag(name: string): boolean {
    return this.values[name] === true;
  }

  private str(name: string): string | undefined {
    const v = this.values[name];
    return typeof v === 'string' ? v : undefined;
  }

  /** A number in [lo, hi] (a whole one when `integer`), read as the CLI reads numbers (decimal only). */
  number(name: string, lo: number, hi: number, fallback: number, integer = false): number {
    const val = this.str(name);
    if (val === undefined) return fallback;
    const v = this.parsed(name, val, integer);
    if (!inRange(v, lo, hi, integer))
      this.fail(`--${name} must be ${integer ? 'an integer' : 'a number'} in [${lo}, ${hi}], got ${val}`);
    return v;
  }

  /** One decimal number of option `name` (the CLI's grammar); a word that is not one fails with its reason. */
  private parsed(name: string, text: string, integer: boolean): number {
    try {
      return integer ? parseInteger(name, text, Number.MIN_SAFE_INTEGER) : parseDecimal(name, text);
    } catch (err) {
      if (err instanceof InvalidArgumentError) this.fail(err.message);
      throw err;
    }
  }

  int(name: string, lo: number, hi: number, fallback: number): number {
    return this.number(name, lo, hi, fallback, true);
  }

  /** A comma-separated list of numbers in [lo, hi] (whole ones when `integer`). */
  numbers(name: string, lo: number, hi: number, fallback: readonly number[], integer = false): number[] {
    const val = this.str(name);
    if (val === undefined) return [...fallback];
    const xs = val.split(',').map((t) => this.parsed(name, t.trim(), integer));
    if (xs.some((v) => !inRange(v, lo, hi, integer)))
      this.fail(`--${name} must be ${integer ? 'integers' : 'numbers'} in [${lo}, ${hi}], got ${val}`);
    return xs;
  }

  /** A comma-separated list of words, each one of `allowed`. */
  choices<T extends string>(name: string, allowed: readonly T[], fallback: readonly T[]): T[] {
    const val = this.str(name);
    if (val === undefined) return [...fallback];
    const xs = val.split(',');
    if (xs.some((x) => !(allowed as readonly string[]).includes(x)))
      this.fail(`--${name} must be a list of ${allowed.join(', ')}, got ${val}`);
    return xs as T[];
  }
}

function inRange(v: number, lo: number, hi: number, integer: boolean): boolean {
  return (integer ? Number.isInteger(v) : Number.isFinite(v)) && v >= lo && v <= hi;
}

function fail(script: string, usage: string, msg: string): never {
  process.stderr.write(`${script}: ${msg}\nusage: ${usage}\n`);
  process.exit(2);
}
