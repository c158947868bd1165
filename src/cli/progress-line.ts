/**
 * One line of progress on stderr for long single computations (the simulate command has its
 * table): on a terminal, redrawn in place and cleared at the end, shown once the work has taken
 * `delayMs` (short runs print nothing); elsewhere (a log file, a pipe) only when asked for
 * (`verbose`), as plain lines, a new one when the stage changes or `everyMs` has passed.
 */
export interface ProgressLineOptions {
  /** Whether stderr is a terminal (default: the stream's isTTY). */
  tty?: boolean;
  /** -v: lines also where stderr is not a terminal, and on a terminal from the start. */
  verbose?: boolean;
  /** On a terminal without verbose: nothing before this much work (default 2000 ms). */
  delayMs?: number;
  /** Not a terminal: at most a line this often within a stage (default 10000 ms). */
  everyMs?: number;
}

export class ProgressLine {
  private readonly tty: boolean;
  private readonly verbose: boolean;
  private readonly delayMs: number;
  private readonly everyMs: number;
  private drawn = false;
  private lastStage: string | null = null;
  private lastPlain = -Infinity;

  constructor(
    private readonly out: NodeJS.WritableStream & { isTTY?: boolean },
    opts: ProgressLineOptions = {},
  ) {
    this.tty = opts.tty ?? out.isTTY === true;
    this.verbose = opts.verbose === true;
    this.delayMs = opts.delayMs ?? 2000;
    this.everyMs = opts.everyMs ?? 10_000;
  }

  /** The state `text` of stage `stage` after `elapsedMs` of work. */
  update(stage: string, text: string, elapsedMs: number): void {
    if (this.tty) {
      if (!this.verbose && elapsedMs < this.delayMs) return;
      this.out.write(`\r\x1b[2K${text}`);
      this.drawn = true;
      return;
    }
    if (!this.verbose) return;
    if (stage === this.lastStage && elapsedMs - this.lastPlain < this.everyMs) return;
    this.lastStage = stage;
    this.lastPlain = elapsedMs;
    this.out.write(`${text}\n`);
  }

  /** A message of its own line (a checkpoint written, a warning), always shown; the progress line is redrawn at the next update. */
  note(text: string): void {
    this.done();
    this.out.write(`${text}\n`);
  }

  /** Clears a drawn line (the output that follows starts on a clean line). */
  done(): void {
    if (this.drawn) this.out.write('\r\x1b[2K');
    this.drawn = false;
  }
}
