/**
 * How the batch runner cuts a batch (BatchRunOptions), declared once for every part: reduce()'s
 * gpuTuning.batch, detectAsync()'s gpuBatch, decodeBatchAsync()'s gpuBatch and the runner itself
 * read this one schema, so a value means the same and is refused the same way everywhere. No
 * native code: the CPU engine checks options with it without loading the CUDA bindings.
 */
import { integer, object, option, type OptionsOf } from '../core/index.js';

/** Pipeline lanes (streams) the runner has at most (workspace.ts: BatchWorkspace.MAX_LANES). */
export const MAX_PIPELINE_LANES = 3;
/** The most chunks BatchRunOptions.chunks may ask for. */
export const MAX_TUNED_CHUNKS = 256;

/** Each BatchRunOptions key: its check (0 means automatic for each) and its doc line. */
export const BATCH_RUN_SCHEMA = {
  maxChunk: option(
    integer(0, Number.MAX_SAFE_INTEGER),
    'most items per chunk (0 or absent: free memory and the pipeline decide)',
  ),
  streams: option(
    integer(0, MAX_PIPELINE_LANES),
    `pipeline lanes (streams), 1 to ${MAX_PIPELINE_LANES} (0 or absent: up to ${MAX_PIPELINE_LANES} when the batch has several chunks)`,
  ),
  chunks: option(
    integer(0, MAX_TUNED_CHUNKS),
    `chunks to cut the batch into, 1 to ${MAX_TUNED_CHUNKS} (0 or absent: the pipeline's rule); free memory or maxChunk may make more`,
  ),
} as const;

/** How the runner cuts a batch (for tests and measurements; the defaults suit production). */
export interface BatchRunOptions {
  /** Most items per chunk (0 or absent: memory and the pipeline decide). */
  readonly maxChunk?: number;
  /** Pipeline lanes (streams), 1 to 3 (0 or absent: up to 3 when the batch has several chunks). */
  readonly streams?: number;
  /** Chunks to cut the batch into, 1 to MAX_TUNED_CHUNKS (0 or absent: the pipeline's rule); free memory or maxChunk may make more. */
  readonly chunks?: number;
}

// the interface and the schema say the same keys
const _sameKeys: Required<OptionsOf<typeof BATCH_RUN_SCHEMA>> extends Required<BatchRunOptions> ? true : never = true;
void _sameKeys;

/** The option a part's schema declares for the batch runner's cutting (`gpuBatch`, `gpuTuning.batch`). */
export const batchRunOption = (doc: string) => option(object(BATCH_RUN_SCHEMA), doc);

/**
 * BatchRunOptions checked by the one schema: `path` names the option in messages ("detect() option
 * gpuBatch"), whose keys are then named gpuBatch.maxChunk and so on. An InvalidArgumentError names
 * the key (details.option); undefined is no options.
 */
export function checkBatchRunOptions(v: unknown, path = 'batch runner option gpuBatch'): BatchRunOptions {
  return v === undefined ? {} : object(BATCH_RUN_SCHEMA).check(v, path);
}
