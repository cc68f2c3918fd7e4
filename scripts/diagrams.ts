/**
 * `npm run diagrams`: writes `visualizations/` from the machines (see
 * `src/diagrams/generate.ts`). Deterministic: a second run changes nothing.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { generateDiagrams } from '../src/diagrams/generate.ts';
import { PACKAGE_ROOT as root } from '../src/paths.ts';

for (const file of await generateDiagrams()) {
  const target = resolve(root, file.path);
  mkdirSync(dirname(target), { recursive: true });
  let current: string | null = null;
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    current = null;
  }
  if (current === file.content) {
    console.log(`unchanged ${file.path}`);
    continue;
  }
  writeFileSync(target, file.content);
  console.log(`${current === null ? 'wrote' : 'updated'} ${file.path}`);
}
