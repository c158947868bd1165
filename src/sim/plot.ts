/**
 * Error-rate curves: BER and FER (or any of ber/ser/fer) against SNR, one line per detector,
 * log-scale y axis. Vega-Lite spec -> Vega -> SVG (headless, no canvas), and SVG -> PNG with resvg
 * (its WebAssembly build).
 * Points with zero errors have no place on a log axis: they are left out, and the plot says so.
 * vega, vega-lite and resvg are loaded only when a plot is made.
 */
import { existsSync, readdirSync, readFileSync, type Dirent } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import { channelEntry, DEFAULT_CHANNEL_MODEL } from '../channels/index.js';
import { InvalidArgumentError, UnsupportedError, writeFileAtomic } from '../core/index.js';
import { snrTypeName } from './table.js';
import type { SimulationResult } from './types.js';

/** Which error rate a plot panel shows: bit, symbol or frame (vector). */
export type PlotMetric = 'ber' | 'ser' | 'fer';

/** How the error-rate plot looks. */
export interface PlotOptions {
  /** Panels side by side, one per metric (default ['ber', 'fer']). */
  metrics?: PlotMetric[];
  /** Title above the panels (default "4x4 MIMO, 16QAM": the antennas and the modulation). */
  title?: string;
  /** Width and height of each panel in px (default 360 x 300). */
  width?: number;
  /** See width. */
  height?: number;
}

const METRIC_TITLE: Record<PlotMetric, string> = {
  ber: 'BER (bit error rate)',
  ser: 'SER (symbol error rate)',
  fer: 'FER (frame error rate)',
};
const METRIC_ERRORS: Record<PlotMetric, 'bitErrors' | 'symbolErrors' | 'frameErrors'> = {
  ber: 'bitErrors',
  ser: 'symbolErrors',
  fer: 'frameErrors',
};

/** Powers of ten spanning the values (labels on decades only: 1e-1, 1e-2, ...), up to 1. */
function decadeTicks(values: number[]): number[] {
  const lo = values.length ? Math.floor(Math.log10(Math.min(...values)) + 1e-9) : -3;
  const hi = values.length ? Math.max(0, Math.ceil(Math.log10(Math.max(...values)) - 1e-9)) : 0;
  const ticks: number[] = [];
  for (let k = Math.max(lo, -330); k <= hi; k++) ticks.push(Number(`1e${k}`));
  if (ticks.length === 1) ticks.unshift(ticks[0]! / 10);
  return ticks;
}

/** The Vega-Lite spec of the plot (a plain object, JSON-serialisable). */
export function plotSpec(result: SimulationResult, opts: PlotOptions = {}): Record<string, unknown> {
  const metrics = opts.metrics ?? ['ber', 'fer'];
  if (metrics.length === 0) throw new InvalidArgumentError('a plot needs at least one metric');
  const width = opts.width ?? 360,
    height = opts.height ?? 300;
  const snrTitle = `${snrTypeName(result.snrType)} (dB)`;
  const detectorOrder = [...new Set(result.points.map((p) => p.detector))];
  const omitted = new Set<string>();
  const panels = metrics.map((m) => {
    const values = [];
    for (const p of result.points) {
      if (p[METRIC_ERRORS[m]] === 0) {
        omitted.add(m);
        continue;
      }
      values.push({ detector: p.detector, snr: p.snr, value: p[m], errors: p[METRIC_ERRORS[m]] });
    }
    const decades = decadeTicks(values.map((v) => v.value));
    return {
      width,
      height,
      data: { values },
      mark: { type: 'line', point: { filled: true, size: 45 }, strokeWidth: 1.8 },
      encoding: {
        x: {
          field: 'snr',
          type: 'quantitative',
          title: snrTitle,
          scale: { zero: false, nice: false, padding: 10 },
          axis: { grid: true },
        },
        y: {
          field: 'value',
          type: 'quantitative',
          title: METRIC_TITLE[m],
          scale: { type: 'log', domain: [decades[0], decades[decades.length - 1]] },
          axis: { grid: true, format: '.0e', values: decades },
        },
        color: { field: 'detector', type: 'nominal', title: 'detector', sort: detectorOrder },
        shape: { field: 'detector', type: 'nominal', title: 'detector', sort: detectorOrder },
      },
    };
  });
  const model = result.channel ?? DEFAULT_CHANNEL_MODEL;
  const channel = channelEntry(model)?.title ?? model;
  const link = result.code
    ? `code ${result.code}, ${result.decoder?.algorithm ?? 'nms'} ${result.decoder?.maxIterations ?? 20} iterations (BER, FER on information bits)`
    : 'uncoded';
  const subtitle = [`${link}, ${channel}, ${result.points.length} points, seed ${result.seed}`];
  if (omitted.size > 0) subtitle.push('points with zero errors are not drawn (no place on a log axis)');
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: opts.title ?? `${result.nt}x${result.nr} MIMO, ${result.modulation.toUpperCase()}`,
      subtitle,
      anchor: 'start',
      fontSize: 15,
    },
    background: 'white',
    padding: 12,
    hconcat: panels,
    resolve: { scale: { color: 'shared', shape: 'shared' } },
    config: {
      font: 'DejaVu Sans, Arial, sans-serif',
      axis: { labelFontSize: 11, titleFontSize: 12 },
      legend: { labelFontSize: 11, titleFontSize: 12 },
    },
  };
}

/** The plot as an SVG document. */
export async function renderPlotSvg(result: SimulationResult, opts: PlotOptions = {}): Promise<string> {
  const [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')]);
  // vega-lite's TopLevelSpec type is much stricter than a plain object; the spec above is valid.
  const compiled = vegaLite.compile(plotSpec(result, opts) as unknown as Parameters<typeof vegaLite.compile>[0]);
  const view = new vega.View(vega.parse(compiled.spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** The font files PNG text is drawn with, in order of preference (the SVG names sans-serif). */
const FONT_FILES = [
  'DejaVuSans.ttf',
  'DejaVuSans-Bold.ttf',
  'LiberationSans-Regular.ttf',
  'LiberationSans-Bold.ttf',
  'Arial.ttf',
  'arial.ttf',
  'Helvetica.ttc',
];
/** The family each font file holds. */
const FONT_FAMILY = (file: string): string =>
  file.startsWith('DejaVu')
    ? 'DejaVu Sans'
    : file.startsWith('Liberation')
      ? 'Liberation Sans'
      : file.startsWith('Helvetica')
        ? 'Helvetica'
        : 'Arial';
/** Where fonts are installed (Linux, macOS, Windows); $LATTICE_MIMO_FONT_DIR first. */
function fontDirs(): string[] {
  const home = process.env.HOME ?? '';
  return [
    process.env.LATTICE_MIMO_FONT_DIR ?? '',
    '/usr/share/fonts',
    '/usr/local/share/fonts',
    `${home}/.local/share/fonts`,
    `${home}/.fonts`,
    '/System/Library/Fonts',
    '/Library/Fonts',
    `${process.env.WINDIR ?? 'C:\\Windows'}\\Fonts`,
  ].filter((d) => d !== '' && existsSync(d));
}

/** The bytes of the first installed fonts of FONT_FILES (searched at most 4 levels deep), or [] when there are none. */
function findFonts(): { family: string; buffers: Uint8Array[] } {
  const found = new Map<string, string>();
  const walk = (dir: string, depth: number): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory() && depth < 4) walk(join(dir, e.name), depth + 1);
      else if (FONT_FILES.includes(e.name) && !found.has(e.name)) found.set(e.name, join(dir, e.name));
    }
  };
  for (const d of fontDirs()) walk(d, 0);
  const first = FONT_FILES.find((f) => found.has(f));
  if (first === undefined) return { family: '', buffers: [] };
  const family = FONT_FAMILY(first);
  const files = FONT_FILES.filter((f) => found.has(f) && FONT_FAMILY(f) === family);
  return { family, buffers: files.map((f) => new Uint8Array(readFileSync(found.get(f)!))) };
}

let rasteriser: Promise<{
  Resvg: typeof import('@resvg/resvg-wasm').Resvg;
  fonts: ReturnType<typeof findFonts>;
}> | null = null;

/** resvg's WebAssembly build, initialised once, and the fonts it draws text with. */
function loadRasteriser(): Promise<{
  Resvg: typeof import('@resvg/resvg-wasm').Resvg;
  fonts: ReturnType<typeof findFonts>;
}> {
  rasteriser ??= (async () => {
    const wasm = await import('@resvg/resvg-wasm');
    const bytes = readFileSync(createRequire(import.meta.url).resolve('@resvg/resvg-wasm/index_bg.wasm'));
    await wasm.initWasm(bytes);
    return { Resvg: wasm.Resvg, fonts: findFonts() };
  })();
  return rasteriser;
}

/**
 * Rasterises an SVG to PNG bytes (`scale` times the SVG's own size) with resvg's WebAssembly
 * build, so no native code is loaded. Text is drawn with an installed sans-serif font (DejaVu Sans,
 * Liberation Sans, Arial or Helvetica; $LATTICE_MIMO_FONT_DIR names another folder); UnsupportedError when
 * none is installed (an SVG plot needs no font).
 */
export async function svgToPng(svg: string, scale = 2): Promise<Uint8Array> {
  const { Resvg, fonts } = await loadRasteriser();
  if (fonts.buffers.length === 0) {
    throw new UnsupportedError(
      `a PNG plot needs a sans-serif font to draw its text, and none of ${FONT_FILES.join(', ')} is installed under ${fontDirs().join(', ') || 'the usual font folders'}: install one (Debian: fonts-dejavu-core), set LATTICE_MIMO_FONT_DIR, or write an .svg plot`,
      { missing: 'font', fonts: FONT_FILES, searched: fontDirs() },
    );
  }
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: scale },
    background: 'white',
    font: { fontBuffers: fonts.buffers, defaultFontFamily: fonts.family, sansSerifFamily: fonts.family },
  });
  try {
    return resvg.render().asPng();
  } finally {
    resvg.free();
  }
}

/** Writes the plot to `file` (atomically): SVG or PNG, by its extension. */
export async function writePlot(file: string, result: SimulationResult, opts: PlotOptions = {}): Promise<void> {
  const ext = extname(file).toLowerCase();
  if (ext !== '.svg' && ext !== '.png') throw new InvalidArgumentError(`plot file '${file}' must end in .svg or .png`);
  const svg = await renderPlotSvg(result, opts);
  await writeFileAtomic(file, ext === '.svg' ? svg : await svgToPng(svg));
}
