/**
 * The committed diagrams are always current: regenerate everything under
 * `visualizations/` in memory from the machines and hold it byte-equal to the
 * files. Also checks the diagrams draw every transition of each machine (event
 * and guard), its terminals and its compound states, and that generation is
 * deterministic.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { edgeKey, machineEdges, stateNodes } from '../machines/edges.ts';
import { edgeLabel, diagramOf } from '../src/diagrams/graph.ts';
import { coveragePath } from '../src/diagrams/coverage.ts';
import { DIFF_ARTEFACT, generateDiagrams, OUT_DIR, type GeneratedFile } from '../src/diagrams/generate.ts';
import { stateId, TRANSITION_TOKEN, transitionToken } from '../src/diagrams/names.ts';
import { MACHINES } from '../src/diagrams/registry.ts';
import { isCleanSvg } from '../src/web/diagrams.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
let files: GeneratedFile[];
const fileOf = (path: string) => files.find((f) => f.path === path)!.content;

beforeAll(async () => {
  files = await generateDiagrams();
});

describe('visualizations/', () => {
  it('is exactly what the machines generate (run `npm run diagrams` after changing a machine)', () => {
    const stale = files.filter((f) => {
      try {
        return readFileSync(join(root, f.path), 'utf8') !== f.content;
      } catch {
        return true;
      }
    });
    expect(stale.map((f) => f.path)).toEqual([]);
    // No leftover diagram of a machine that is gone. Beside the generated files: each machine's
    // coverage (written by `npm run test:model`, held by test/coverage.test.ts), and the
    // review artefacts of `npm run diagrams -- --against`, which the generated .gitignore keeps out.
    const onDisk = readdirSync(join(root, OUT_DIR)).filter((f) => !DIFF_ARTEFACT.test(f)).map((f) => `${OUT_DIR}/${f}`).sort();
    expect(onDisk).toEqual([...files.map((f) => f.path), ...MACHINES.map((m) => coveragePath(m.name))].sort());
  });

  it('is byte-identical from run to run', async () => {
    const again = await generateDiagrams();
    expect(again).toEqual(files);
  });

  it('has a Mermaid, a Markdown and an SVG diagram for every registered machine', () => {
    expect(MACHINES.map((m) => m.name)).toEqual(['matter', 'deadline-ladder', 'enrollment']);
    for (const { name } of MACHINES) {
      expect(fileOf(`${OUT_DIR}/${name}.mmd`).startsWith('stateDiagram-v2\n')).toBe(true);
      expect(fileOf(`${OUT_DIR}/${name}.md`)).toContain(`\`\`\`mermaid\n${fileOf(`${OUT_DIR}/${name}.mmd`)}\`\`\``);
      expect(fileOf(`${OUT_DIR}/${name}.svg`)).toMatch(/^<\?xml[\s\S]*<svg[\s\S]*<\/svg>\n$/);
    }
  });
});

describe.each(MACHINES.map((m) => [m.name, m] as const))('the %s diagrams', (name, entry) => {
  const edges = machineEdges(entry.machine);
  const mermaid = () => fileOf(`${OUT_DIR}/${name}.mmd`);
  const svg = () => fileOf(`${OUT_DIR}/${name}.svg`);
  /** SVG text is XML-escaped; Graphviz also splits an edge label into one <text> per line. */
  const svgTexts = () => [...svg().matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1].replace(/&#45;/g, '-').replace(/&amp;/g, '&'));

  it('label every transition with its event and guard', () => {
    for (const e of edges) {
      const label = edgeLabel({ event: e.event, guard: e.guard, kind: e.to === null ? (e.refuses ? 'refuses' : 'stays') : 'move' });
      expect(mermaid(), `${e.from} ${e.event}`).toContain(label);
      const texts = svgTexts();
      expect(texts.some((t) => t === e.event || t.startsWith(`${e.event} `) || t === `${e.event} [${e.guard}]`), `${e.from} ${e.event} in the SVG`).toBe(true);
      if (e.guard) expect(texts.some((t) => t.includes(`[${e.guard}]`)), `guard ${e.guard} in the SVG`).toBe(true);
    }
  });

  it('show every state, the compound states as groups and the terminals as terminals', () => {
    const diagram = diagramOf(entry.machine);
    for (const node of stateNodes(entry.machine).filter((n) => n.path.length)) {
      expect(mermaid()).toContain(`state "${node.key}" as ${node.path.join('_')}`);
      expect(svgTexts()).toContain(node.key);
    }
    for (const c of diagram.nodes.filter((n) => n.kind === 'compound')) {
      expect(mermaid()).toContain(`state ${c.path.replace(/\./g, '_')} {`);
      expect(svg()).toContain(`<title>cluster_${c.path}</title>`);
    }
    const terminals = diagram.nodes.filter((n) => n.kind === 'final');
    expect(terminals.length).toBeGreaterThan(0);
    for (const t of terminals) {
      expect(mermaid()).toContain(`${t.path.replace(/\./g, '_')} --> [*]`);
      expect(mermaid()).toMatch(new RegExp(`class [^\\n]*\\b${t.path.replace(/\./g, '_')}\\b[^\\n]* terminal`));
    }
  });

  it('name every state and every transition on its SVG element, once, and stay clean', () => {
    /** Each `<g>`'s id and class tokens, as a browser reads them (Graphviz writes `-` as `&#45;`). */
    const groups = [...svg().matchAll(/<g id="([^"]*)" class="([^"]*)"/g)].map((m) => ({ id: m[1].replace(/&#45;/g, '-'), classes: m[2].replace(/&#45;/g, '-').split(' ') }));
    for (const node of stateNodes(entry.machine).filter((n) => n.path.length)) {
      const named = groups.filter((g) => g.id === stateId(node.path.join('.')));
      expect(named, node.path.join('.')).toHaveLength(1);
      expect(named[0].classes).toContain('state');
    }
    for (const e of edges) {
      const holders = groups.filter((g) => g.classes.includes(transitionToken(edgeKey(e))));
      expect(holders, edgeKey(e)).toHaveLength(1);
      expect(holders[0].classes).toContain('transition');
      expect(decodeURIComponent(transitionToken(edgeKey(e)).slice(TRANSITION_TOKEN.length))).toBe(edgeKey(e));
    }
    // Ids are unique, and a class token never holds a space.
    expect(new Set(groups.map((g) => g.id)).size).toBe(groups.length);
    expect(isCleanSvg(svg())).toBe(true);
  });

  it('count every transition and state in the README', () => {
    const diagram = diagramOf(entry.machine);
    expect(fileOf(`${OUT_DIR}/README.md`)).toContain(`| [${entry.title}](./${name}.md) | ${diagram.nodes.length} | ${edges.length} |`);
  });
});
