/**
 * The pages' scripts: each page's browser module (`src/web/browser/<page>.ts`,
 * TypeScript checked by its own tsconfig) bundled by esbuild into one script,
 * named by its content (`inspector.<hash>.js`) and served from memory at
 * `/scripts/<name>` to be cached for good: a changed script is a new name.
 *
 * Bundled once per process, on the first page asked for (a few hundred
 * milliseconds, esbuild's own start included: docs/inspector.md), never at
 * start-up: the start does not wait for it, and a process that serves no page
 * (a CLI command, the MCP server, a test of the API) never loads esbuild.
 * esbuild's output is a function of its input, so every process running the
 * same sources names the same scripts, and a page one process served loads
 * its script from any other.
 */
import { basename, join } from 'node:path';
import { PACKAGE_ROOT } from '../paths.ts';

const BROWSER_DIR = join(PACKAGE_ROOT, 'src', 'web', 'browser');

/** The pages with a script of their own, each bundled from its module. */
export type PageScript = 'inspector' | 'population' | 'docs' | 'sandbox';
const ENTRIES: Record<PageScript, string> = {
  inspector: join(BROWSER_DIR, 'inspector.ts'),
  population: join(BROWSER_DIR, 'population.ts'),
  docs: join(BROWSER_DIR, 'docs.ts'),
  sandbox: join(BROWSER_DIR, 'sandbox.ts'),
};

/** Where the scripts are served, and the names they take there: the page's, then esbuild's content hash. */
export const SCRIPTS_PATH = '/scripts';
export const SCRIPT_NAME = '^[a-z][a-z-]{0,31}\\.[A-Z0-9]{8}\\.js$';

export interface PageScripts {
  /** The address a page's `<script src>` names. */
  src(script: PageScript): string;
  /** A script's bytes by its name, or undefined when this build has none of that name. */
  bytes(name: string): Uint8Array | undefined;
}

async function bundle(): Promise<PageScripts> {
  const esbuild = await import('esbuild');
  // esbuild bundles in a child process it keeps for later calls (some 17 MB); the pages need it once.
  const { outputFiles } = await esbuild.build({
    entryPoints: ENTRIES,
    entryNames: '[name].[hash]',
    outdir: 'scripts',
    absWorkingDir: PACKAGE_ROOT,
    tsconfig: join(BROWSER_DIR, 'tsconfig.json'),
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
  }).finally(() => esbuild.stop());
  const byName = new Map(outputFiles.map((file) => [basename(file.path), file.contents]));
  // Each script is named `<page>.<hash>.js` (entryNames), the page being its key in ENTRIES.
  const nameOf = new Map([...byName.keys()].map((name) => [name.slice(0, name.indexOf('.')), name]));
  return {
    src: (script) => `${SCRIPTS_PATH}/${nameOf.get(script)}`,
    bytes: (name) => byName.get(name),
  };
}

let bundled: Promise<PageScripts> | undefined;

/** The pages' scripts, bundled on first use; a failed bundling is tried again on the next use. */
export function pageScripts(): Promise<PageScripts> {
  bundled ??= bundle().catch((error: unknown) => {
    bundled = undefined;
    throw error;
  });
  return bundled;
}
