/**
 * The layers a write crosses import only downward: route → engine →
 * schemas → machines and domain → journal → lib, and the CLI, a client, never reaches
 * into the HTTP edge or the engine. `machines/` imports nothing from
 * `src/` (the deciders name their refusals; the catalog words them), and the
 * journal knows neither the domain nor the engine. The pages for people
 * (`src/web/`) sit on the HTTP edge, which knows nothing of them; their
 * browser code (`src/web/browser/`) reaches only what runs in a browser:
 * itself and modules that import nothing (its tsconfig, without Node, holds
 * the rest). Read off the sources' import statements (type-only ones
 * included), so a new upward import fails here naming the file and what it
 * imports. Within a layer too, no file reaches itself again through what it
 * imports: a circle fails here named.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

/** Each layer by the directory that holds it, and the layers below it that it may import. */
const LAYERS: Record<string, { dir: string; may: string[] }> = {
  // The CLI is a client of the service: it reads the domain's settings (the supply network's secret) where the service does, never through the HTTP edge or the engine.
  cli: { dir: 'src/cli', may: ['machines', 'domain', 'journal', 'lib'] },
  // What a person looks at: pages built on the API's edge (a grain resolved as its doors resolve it), and their scripts' data shapes.
  web: { dir: 'src/web', may: ['browser', 'http', 'engine', 'schemas', 'machines', 'domain', 'journal', 'lib'] },
  browser: { dir: 'src/web/browser', may: ['domain'] },
  http: { dir: 'src/http', may: ['engine', 'schemas', 'machines', 'domain', 'journal', 'lib'] },
  engine: { dir: 'src/engine', may: ['schemas', 'machines', 'domain', 'journal', 'lib'] },
  // The contract's shapes (request bodies, resources, facts): what the edge validates and serializes, and what the engine's requests are the static types of.
  schemas: { dir: 'src/schemas', may: ['machines', 'domain', 'journal', 'lib'] },
  domain: { dir: 'src/domain', may: ['machines', 'journal', 'lib'] },
  machines: { dir: 'machines', may: [] },
  journal: { dir: 'src/journal', may: ['lib'] },
  lib: { dir: 'src/lib', may: [] },
  // The telemetry port's adapters (prom-client, OpenTelemetry): the service's start wires them in; what reports through the port (src/lib/telemetry.ts) never imports them.
  telemetry: { dir: 'src/telemetry', may: ['domain', 'lib'] },
};

const sources = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));

/** The relative modules a source imports or re-exports, statically or dynamically. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)'(\.{1,2}\/[^']+)'/gm)].map((m) => m[1]);
  return found.map((spec) => relative(ROOT, resolve(dirname(join(ROOT, file)), spec)));
}

/**
 * The import circles among `files`, each named from its first file in sorted
 * order (`a.ts → b.ts → a.ts`): a depth-first walk meets a file still on its
 * path, so each circle of files is found at least once.
 */
function importCircles(files: string[], importsOfFile: (file: string) => string[] = importsOf): string[] {
  const known = new Set(files);
  const done = new Set<string>();
  const path: string[] = [];
  const circles = new Set<string>();
  const walk = (file: string) => {
    const at = path.indexOf(file);
    if (at >= 0) {
      const circle = path.slice(at);
      const first = circle.indexOf([...circle].sort()[0]);
      const named = [...circle.slice(first), ...circle.slice(0, first)];
      circles.add([...named, named[0]].join(' → '));
      return;
    }
    if (done.has(file)) return;
    path.push(file);
    for (const target of importsOfFile(file)) if (known.has(target)) walk(target);
    path.pop();
    done.add(file);
  };
  for (const file of [...files].sort()) walk(file);
  return [...circles].sort();
}

/** The layer a path is in: the one of the longest directory holding it (`src/web/browser/` within `src/web/`). */
const layerOf = (path: string): string | undefined =>
  Object.keys(LAYERS)
    .filter((name) => path === LAYERS[name].dir || path.startsWith(`${LAYERS[name].dir}/`))
    .sort((a, b) => LAYERS[b].dir.length - LAYERS[a].dir.length)[0];

describe('the layers import only downward', () => {
  for (const [name, layer] of Object.entries(LAYERS)) {
    it(`${layer.dir}/ imports only from ${layer.may.length ? layer.may.map((l) => `${LAYERS[l].dir}/`).join(', ') : 'itself'}`, () => {
      const upward = sources(layer.dir).filter((file) => layerOf(file) === name).flatMap((file) =>
        importsOf(file)
          .filter((target) => {
            const to = layerOf(target);
            // Within the layer, or outside the layered tree (a package, the repository's own scripts): not this test's concern.
            if (to === name) return false;
            if (to === undefined) return name === 'machines' ? target.startsWith('src/') : false;
            return !layer.may.includes(to);
          })
          .map((target) => `${file} imports ${target}`),
      );
      expect(upward).toEqual([]);
    });
  }

  it('only src/telemetry/ imports prom-client or OpenTelemetry: everything else reports through the port', () => {
    const all = ['machines', 'src'].flatMap((dir) => sources(dir));
    const sdk = /(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)'(prom-client|@opentelemetry\/[^']+|@fastify\/otel)'/m;
    const users = all.filter((file) => sdk.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(users.length).toBeGreaterThan(0);
    expect(users.filter((file) => !file.startsWith('src/telemetry/'))).toEqual([]);
  });

  it('src/web/browser/ takes from the rest of the tree only modules that import nothing, so a bundle holds no server code', () => {
    const imported = sources(LAYERS.browser.dir).flatMap((file) => importsOf(file).filter((target) => layerOf(target) !== 'browser'));
    expect(imported.length).toBeGreaterThan(0);
    const importing = [...new Set(imported)].filter((target) => /^\s*(import|export)\b[^;]*\bfrom\s|^\s*import\s*['(]/m.test(readFileSync(join(ROOT, target), 'utf8')));
    expect(importing).toEqual([]);
  });

  it('no file in src/ or machines/ reaches itself again through its imports', () => {
    expect(importCircles([...sources('src'), ...sources('machines')])).toEqual([]);
  });

  it('names a circle when there is one', () => {
    const graph: Record<string, string[]> = { 'a.ts': ['b.ts'], 'b.ts': ['c.ts', 'd.ts'], 'c.ts': ['a.ts'], 'd.ts': [] };
    expect(importCircles(Object.keys(graph), (file) => graph[file])).toEqual(['a.ts → b.ts → c.ts → a.ts']);
  });

  it('src/http/routes/ holds at most 8 casts (type assertions, `as const` aside): a request is typed from its route\'s schema', () => {
    const casts = sources('src/http/routes').flatMap((file) => {
      const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
      const found: string[] = [];
      const visit = (node: ts.Node) => {
        const cast = ts.isAsExpression(node) || ts.isTypeAssertionExpression(node);
        if (cast && !(ts.isTypeReferenceNode(node.type) && node.type.getText() === 'const')) found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${node.getText().slice(0, 80)}`);
        ts.forEachChild(node, visit);
      };
      visit(source);
      return found;
    });
    expect(casts.length, casts.join('\n')).toBeLessThanOrEqual(8);
    expect(casts.length, 'the count reads the casts it judges').toBeGreaterThan(0);
  });

  it('reads the imports it judges', () => {
    // A guard against a pattern that matches nothing: the engine imports the journal, and machines import each other.
    expect(importsOf('src/engine/supervisor.ts')).toContain('src/journal/store.ts');
    expect(importsOf('machines/matter.table.ts')).toContain('machines/edges.ts');
    expect(layerOf('src/web/browser/inspector.ts')).toBe('browser');
    expect(layerOf('src/web/routes.ts')).toBe('web');
  });
});
