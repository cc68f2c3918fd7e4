/**
 * DOT to SVG without a browser: Graphviz compiled to WebAssembly. Its text
 * metrics are built in (no system fonts), so the same DOT gives the same
 * bytes on every machine with the same locked package version.
 */
import { Graphviz } from '@hpcc-js/wasm-graphviz';

let loaded: Promise<Graphviz> | null = null;

export async function renderSvg(dot: string): Promise<string> {
  loaded ??= Graphviz.load();
  const svg = (await loaded).dot(dot, 'svg');
  return svg.endsWith('\n') ? svg : `${svg}\n`;
}
