/**
 * The package's root directory (where `package.json` and `visualizations/`
 * are), found by walking up from this module. The same code runs from its
 * sources in `src/` and from the bundle in `dist/`, at different depths, so
 * no module names a fixed number of `..`.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function packageRoot(from: string): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PACKAGE_ROOT = packageRoot(fileURLToPath(import.meta.url));
