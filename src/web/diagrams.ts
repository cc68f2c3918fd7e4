/**
 * The generated state diagrams (`visualizations/*.svg`, drawn from the
 * machines by another module). They are read at request time, so a page
 * shows whatever was generated last; a diagram that is missing degrades to a
 * link with a note, never to a broken page.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CoverageFile } from '../diagrams/coverage.ts';
import { MACHINES } from '../diagrams/registry.ts';
import { PACKAGE_ROOT } from '../paths.ts';
import type { DrawnCoverage } from './browser/coverage.ts';

export const DEFAULT_VISUALIZATIONS_DIR = join(PACKAGE_ROOT, 'visualizations');

/** The machines whose diagrams the docs page always names, in the registry's (reading) order. */
const KNOWN: Array<{ name: string; title: string; about: string }> = MACHINES.map(({ name, title, about }) => ({ name, title, about }));

export const DIAGRAM_NAME = '^[a-z0-9][a-z0-9-]{0,63}\\.svg$';
/** DIAGRAM_NAME compiled once: every listing and every read tests a name against it. */
const DIAGRAM_FILE = new RegExp(DIAGRAM_NAME);

export interface DiagramEntry {
  name: string;
  file: string;
  title: string;
  about: string;
  available: boolean;
  /** The model tests' coverage of its machine, when `npm run test:model` wrote it. */
  coverage?: DrawnCoverage | null;
}

const titleOf = (name: string) => name.replace(/-/g, ' ').replace(/^./, (c) => c.toUpperCase());

/** An SVG that could carry script is not served: the generator never writes one. */
export const isCleanSvg = (text: string) => /<svg[\s>]/i.test(text) && !/<script|\son[a-z]+\s*=|javascript:|<foreignObject/i.test(text);

/** The known diagrams plus any other SVG found, each marked available when it can be served. */
export async function listDiagrams(dir = DEFAULT_VISUALIZATIONS_DIR): Promise<DiagramEntry[]> {
  let files: string[] = [];
  try {
    files = (await readdir(dir)).filter((f) => DIAGRAM_FILE.test(f)).sort();
  } catch {
    files = [];
  }
  // Only what readDiagram would serve counts: the page must never show a broken image.
  const servable = new Set((await Promise.all(files.map(async (f) => ((await readDiagram(f, dir)) ? f : null)))).filter((f): f is string => f !== null));
  const known = await Promise.all(KNOWN.map(async (k) => ({ ...k, file: `${k.name}.svg`, available: servable.has(`${k.name}.svg`), coverage: await readCoverage(k.name, dir) })));
  const others = [...servable].filter((f) => !KNOWN.some((k) => `${k.name}.svg` === f)).map((f) => ({ name: f.slice(0, -4), file: f, title: titleOf(f.slice(0, -4)), about: 'generated from its machine', available: true }));
  return [...known, ...others];
}

/** The SVG's bytes, or null when it is missing or not clean. */
export async function readDiagram(file: string, dir = DEFAULT_VISUALIZATIONS_DIR): Promise<Buffer | null> {
  if (!DIAGRAM_FILE.test(file)) return null;
  try {
    // The name pattern admits no separator, so the join cannot leave `dir`.
    const bytes = await readFile(join(dir, file));
    return isCleanSvg(bytes.toString('utf8')) ? bytes : null;
  } catch {
    return null;
  }
}

/**
 * A machine's model coverage (`<machine>.coverage.json`, written by
 * `npm run test:model`), as the pages draw it; null when it is missing or
 * not the named machine's.
 */
export async function readCoverage(name: string, dir = DEFAULT_VISUALIZATIONS_DIR): Promise<DrawnCoverage | null> {
  if (!MACHINES.some((m) => m.name === name)) return null;
  try {
    const file = JSON.parse(await readFile(join(dir, `${name}.coverage.json`), 'utf8')) as CoverageFile;
    if (file.machine !== name || !Array.isArray(file.transitions)) return null;
    return { walked: file.walked, total: file.total, refusing: file.refusing, paths: file.paths, transitions: file.transitions.map((t) => ({ key: String(t.key), paths: Number(t.paths) })) };
  } catch {
    return null;
  }
}
