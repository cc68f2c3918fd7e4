/**
 * The command line runs from a JavaScript build of its TypeScript sources,
 * made by esbuild with the packages left external, because loading some
 * hundred modules one by one through the TypeScript loader took most of the
 * service's start-up (about 0.6 s of 0.9 s). The build is split at the
 * dynamic imports, so a command loads only what it runs (the service never
 * loads the MCP SDK, nor the MCP server the service).
 *
 * A build is never run stale: it lives in `dist/<key>/`, where the key is a
 * digest of every source's path, size and modification time, so an edited
 * source means a new key and a new build (about a tenth of a second). A build
 * is made in a directory of its own and renamed into place whole, and never
 * changes after, so concurrent commands neither see half a build nor lose one
 * they are running.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** What a build is made of: every source, and the manifest that pins the packages. */
const SOURCES = ['src', 'machines'];

/** The digest of the sources a build would be made from. */
export function sourceKey(root = ROOT) {
  const hash = createHash('sha256');
  const add = (path) => {
    const { size, mtimeMs } = statSync(path);
    hash.update(`${path.slice(root.length)}\0${size}\0${mtimeMs}\n`);
  };
  add(join(root, 'package.json'));
  for (const dir of SOURCES) {
    for (const name of readdirSync(join(root, dir), { recursive: true }).sort()) add(join(root, dir, name));
  }
  return hash.digest('hex').slice(0, 16);
}

/** Builds the sources into `dist/<key>/`, unless that build exists; returns its entry module. */
export async function ensureBuild(root = ROOT) {
  const dist = join(root, 'dist');
  const key = sourceKey(root);
  const dir = join(dist, key);
  const entry = join(dir, 'legalwork.mjs');
  try {
    statSync(entry);
    return entry;
  } catch {
    // Not built yet for these sources.
  }
  const { build } = await import('esbuild');
  const partial = join(dist, `.partial-${process.pid}-${Date.now()}`);
  mkdirSync(partial, { recursive: true });
  await build({
    entryPoints: { legalwork: join(root, 'src', 'cli', 'main.ts') },
    outdir: partial,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
  });
  try {
    renameSync(partial, dir);
  } catch {
    // Another command built the same sources first: theirs is identical.
    rmSync(partial, { recursive: true, force: true });
  }
  // Builds of older sources are no longer reachable from any key.
  for (const old of readdirSync(dist)) if (old !== key && !old.startsWith('.partial-')) rmSync(join(dist, old), { recursive: true, force: true });
  return entry;
}

/**
 * The command line's `main`, from the build of the current sources; straight
 * from the sources, through the TypeScript loader, where no build can be
 * written (a read-only install).
 */
export async function loadMain() {
  let entry;
  try {
    entry = await ensureBuild();
  } catch (error) {
    if (!['EACCES', 'EPERM', 'EROFS'].includes(error?.code)) throw error;
    (await import('tsx/esm/api')).register();
    return (await import('../src/cli/main.ts')).main;
  }
  return (await import(pathToFileURL(entry).href)).main;
}
