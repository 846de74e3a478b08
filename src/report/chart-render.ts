/**
 * Draws a Vega-Lite spec as SVG (Vega's headless renderer, no DOM or canvas) and the SVG as PNG (resvg, a
 * Rust rasterizer shipped as prebuilt binaries). Both run offline: nothing is fetched, so a report can be
 * built on a cluster node without network. Vega sizes text by estimate without a canvas; the PNG draws it
 * with the system's sans-serif font.
 */
import { Resvg } from '@resvg/resvg-js';
import { logger, parse, View, Warn } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

export interface RenderedSvg {
  readonly svg: string;
  /**
   * What Vega-Lite and Vega warned about (a dropped encoding, a scale that cannot be resolved …). Our specs
   * should raise none: the command prints them rather than letting the libraries write to the console.
   */
  readonly warnings: readonly string[];
}

export async function renderChartSvg(spec: TopLevelSpec): Promise<RenderedSvg> {
  const warnings: string[] = [];
  const collect = logger(Warn, 'warn', (_method, _level, input) => {
    warnings.push(input.map(String).join(' '));
  });
  const view = new View(parse(compile(spec, { logger: collect }).spec), { renderer: 'none', logger: collect });
  try {
    return { svg: await view.toSVG(), warnings };
  } finally {
    view.finalize();
  }
}

/** PNG at twice the SVG's size, for sharp figures in slides and papers. */
export function renderSvgPng(svg: string): Uint8Array {
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: 2 },
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans', sansSerifFamily: 'DejaVu Sans' },
  });
  return resvg.render().asPng();
}
