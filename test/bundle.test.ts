import { mkdtempSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript, without declarations
import { ensureBuild, sourceKey } from '../bin/bundle.js';

/** A package shaped like this one: a manifest, machines/ and src/cli/main.ts. */
function fakePackage(): string {
  const root = mkdtempSync(join(tmpdir(), 'legalwork-bundle-'));
  writeFileSync(join(root, 'package.json'), '{"type":"module"}');
  mkdirSync(join(root, 'machines'));
  writeFileSync(join(root, 'machines', 'm.ts'), 'export const answer: number = 41;\n');
  mkdirSync(join(root, 'src', 'cli'), { recursive: true });
  writeFileSync(join(root, 'src', 'cli', 'main.ts'), "import { answer } from '../../machines/m.ts';\nexport async function main(): Promise<number> { return answer; }\n");
  return root;
}

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('the command line build (bin/bundle.js)', () => {
  it('builds once per state of the sources, and anew when any source changes', async () => {
    const root = fakePackage();
    roots.push(root);
    const first = await ensureBuild(root);
    await expect((await import(pathToFileURL(first).href)).main()).resolves.toBe(41);
    // Unchanged sources: the same build, not rebuilt.
    expect(await ensureBuild(root)).toBe(first);

    writeFileSync(join(root, 'machines', 'm.ts'), 'export const answer: number = 42;\n');
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(root, 'machines', 'm.ts'), later, later);
    const second = await ensureBuild(root);
    expect(second).not.toBe(first);
    await expect((await import(pathToFileURL(second).href)).main()).resolves.toBe(42);
    // The stale build is gone; only the current one is kept.
    expect(readdirSync(join(root, 'dist'))).toEqual([sourceKey(root)]);
  });

  it('lets concurrent commands build the same sources without harm', async () => {
    const root = fakePackage();
    roots.push(root);
    const entries = await Promise.all([ensureBuild(root), ensureBuild(root), ensureBuild(root)]);
    expect(new Set(entries).size).toBe(1);
    expect(readdirSync(join(root, 'dist'))).toEqual([sourceKey(root)]);
    await expect((await import(pathToFileURL(entries[0]).href)).main()).resolves.toBe(41);
  });
});
