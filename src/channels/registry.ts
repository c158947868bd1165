/**
 * The channel models, one entry each (its folder's entry.ts): name, description, parameters, shape
 * rule, and its CPU generator and (where it has one) its CUDA generator on the same Philox streams. Adding a model is adding its
 * folder and a line in the registry below: simulate()'s validation, the link on both engines, the
 * `--channel` choices and help, plot titles and resume files read the registry.
 */
import { checkOptions, InvalidArgumentError, nearest, type OptionSchema, show } from '../core/index.js';
import { awgnEntry } from './awgn/entry.js';
import { kroneckerEntry } from './kronecker/entry.js';
import { rayleighEntry } from './rayleigh/entry.js';
import { ricianEntry } from './rician/entry.js';
import { TDL_ENTRIES } from './tdl/entry.js';
import { CDL_ENTRIES } from './cdl/index.js';
import type { ChannelEntry, ChannelShape } from './types.js';

/** The built-in models: one line each. */
const BUILT_IN_MODELS = {
  rayleigh: rayleighEntry,
  awgn: awgnEntry,
  rician: ricianEntry,
  kronecker: kroneckerEntry,
  ...TDL_ENTRIES,
  ...CDL_ENTRIES,
};

/** A channel model by name. */
export type ChannelModel = keyof typeof BUILT_IN_MODELS;

/** An entry of any model (lookups by a name known only at run time). */
// biome-ignore lint/suspicious/noExplicitAny: the parameter interface differs from model to model
export type AnyChannelEntry = ChannelEntry<string, any>;

/** The registry: an entry per model name. */
export const CHANNEL_REGISTRY: Readonly<typeof BUILT_IN_MODELS> = { ...BUILT_IN_MODELS };

/** Every channel model, by name, in registry order. */
export const CHANNEL_MODELS: readonly ChannelModel[] = Object.keys(BUILT_IN_MODELS) as ChannelModel[];

/** The model of a simulation that names none. */
export const DEFAULT_CHANNEL_MODEL: ChannelModel = 'rayleigh';

/** The entry of a model name (undefined for a name no entry has). */
export function channelEntry(name: string): AnyChannelEntry | undefined {
  return Object.hasOwn(CHANNEL_REGISTRY, name)
    ? (CHANNEL_REGISTRY as Record<string, AnyChannelEntry>)[name]
    : undefined;
}

/**
 * Adds a model at run time (the tests' fake model), so that it shows up wherever the registry is
 * read; returns the function that removes it again. Its name must be new.
 */
export function registerChannelModel(entry: AnyChannelEntry): () => void {
  const reg = CHANNEL_REGISTRY as Record<string, AnyChannelEntry>;
  if (Object.hasOwn(reg, entry.name)) throw new Error(`internal: channel model '${entry.name}' is registered already`);
  reg[entry.name] = entry;
  (CHANNEL_MODELS as string[]).push(entry.name);
  return () => {
    delete reg[entry.name];
    const i = (CHANNEL_MODELS as string[]).indexOf(entry.name);
    if (i >= 0) (CHANNEL_MODELS as string[]).splice(i, 1);
  };
}

/** A model, its parameters and its entry, checked (checkChannel). */
export interface CheckedChannel {
  readonly model: ChannelModel;
  readonly params: Readonly<Record<string, unknown>>;
  readonly entry: AnyChannelEntry;
}

/**
 * Checks a model name (absent: DEFAULT_CHANNEL_MODEL), its parameters against its schema and the
 * shape against its rule. `call` names the caller in messages ('simulate()'). InvalidArgumentError
 * for an unknown model (the nearest name suggested), a parameter it does not take (another model's
 * named as such), a value of the wrong type or range, and a shape it cannot serve.
 */
export function checkChannel(model: unknown, params: unknown, shape: ChannelShape, call: string): CheckedChannel {
  const name = model === undefined ? DEFAULT_CHANNEL_MODEL : model;
  const entry = typeof name === 'string' ? channelEntry(name) : undefined;
  if (!entry) {
    const near = typeof name === 'string' ? nearest(name, CHANNEL_MODELS) : null;
    throw new InvalidArgumentError(
      `${call} option channel must be one of ${CHANNEL_MODELS.join(', ')}, got ${show(name)}${near ? ` (did you mean '${near}'?)` : ''}`,
      { option: 'channel', value: typeof name === 'string' ? name : show(name), ...(near ? { suggestion: near } : {}) },
    );
  }
  if (params !== undefined && params !== null && typeof params === 'object' && !Array.isArray(params)) {
    for (const key of Object.keys(params)) {
      if (Object.hasOwn(entry.options, key) || (params as Record<string, unknown>)[key] === undefined) continue;
      const owners = CHANNEL_MODELS.filter((m) => Object.hasOwn(channelEntry(m)!.options, key));
      if (owners.length > 0) {
        throw new InvalidArgumentError(
          `${call}: option channelOptions.${key} does not apply: it is a parameter of ${owners.join(', ')}, not of ${entry.name}`,
          { option: `channelOptions.${key}`, channel: entry.name },
        );
      }
    }
  }
  const checked = checkOptions(params, entry.options as OptionSchema, call, 'channelOptions.');
  entry.checkShape(shape, checked);
  return { model: entry.name as ChannelModel, params: checked, entry };
}
