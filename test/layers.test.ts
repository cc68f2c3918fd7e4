/**
 * The layers a write crosses import only downward: route → engine →
 * schemas → machines and domain → journal → lib, and the CLI, a client, never reaches
 * into the HTTP edge or the engine. `machines/` imports nothing from
 * `src/` (the deciders name their refusals; the catalog words them), and the
 * journal knows neither the domain nor the engine. Read off the sources'
 * import statements (type-only ones included), so a new upward import fails
 * here naming the file and what it imports.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

/** Each layer by the directory that holds it, and the layers below it that it may import. */
const LAYERS: Record<string, { dir: string; may: string[] }> = {
  // The CLI is a client of the service: it reads the domain's settings (the supply network's secret) where the service does, never through the HTTP edge or the engine.
  cli: { dir: 'src/cli', may: ['machines', 'domain', 'journal', 'lib'] },
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

const layerOf = (path: string): string | undefined => Object.keys(LAYERS).find((name) => path === LAYERS[name].dir || path.startsWith(`${LAYERS[name].dir}/`));

describe('the layers import only downward', () => {
  for (const [name, layer] of Object.entries(LAYERS)) {
    it(`${layer.dir}/ imports only from ${layer.may.length ? layer.may.map((l) => `${LAYERS[l].dir}/`).join(', ') : 'itself'}`, () => {
      const upward = sources(layer.dir).flatMap((file) =>
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

  it('reads the imports it judges', () => {
    // A guard against a pattern that matches nothing: the engine imports the journal, and machines import each other.
    expect(importsOf('src/engine/supervisor.ts')).toContain('src/journal/store.ts');
    expect(importsOf('machines/matter.table.ts')).toContain('machines/edges.ts');
  });
});
