/**
 * Which build of the service is running: what a cache of answers its code
 * composes is tagged with, so a row another build wrote (whose views may say
 * the same facts otherwise) is never sent by this one.
 *
 * Run from its build (`bin/bundle.js` makes one per state of the sources,
 * in `dist/<key>/`), it is that build's key, read off this module's own
 * address. Run from the sources (tests, `tsx`), it is a digest of their
 * paths, sizes and modification times, as `bin/bundle.js` computes a key:
 * an edited source is another build.
 */
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCES = ['src', 'machines'];
let key: string | undefined;

export function buildKey(): string {
  return (key ??= /\/dist\/([0-9a-f]{16})\//.exec(import.meta.url)?.[1] ?? sourcesKey(fileURLToPath(new URL('../..', import.meta.url))));
}

function sourcesKey(root: string): string {
  const hash = createHash('sha256');
  for (const dir of SOURCES) {
    for (const name of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).sort()) {
      const { size, mtimeMs } = statSync(join(root, dir, name));
      hash.update(`${dir}/${name}\0${size}\0${mtimeMs}\n`);
    }
  }
  return hash.digest('hex').slice(0, 16);
}
