/**
 * Everything under `visualizations/`, generated in memory from the machines
 * in the registry: per machine a Mermaid `.mmd`, the same in a mermaid fence
 * (`.md`, renders on a code host) and an `.svg`; and the README with the
 * legend. `npm run diagrams` writes these; a test regenerates them and fails
 * on any difference from the committed files.
 */
import { diagramOf, type Diagram } from './graph.ts';
import { toDot } from './dot.ts';
import { toMermaid } from './mermaid.ts';
import { MACHINES, type MachineEntry } from './registry.ts';
import { renderSvg } from './svg.ts';

export interface GeneratedFile {
  /** Relative to the repository root. */
  path: string;
  content: string;
}

export const OUT_DIR = 'visualizations';
/** What `npm run diagrams -- --against <ref>` writes for a review (`<machine>.diff.svg`, `machines.diff.md`): never committed. */
export const DIFF_ARTEFACT = /\.diff\.[a-z]+$/;
const GITIGNORE = ['# Review artefacts of `npm run diagrams -- --against <ref>` (a machine change against a git ref): written for a review, never committed.', '*.diff.svg', '*.diff.md', ''].join('\n');
const NOTICE = 'Generated from the machine by `npm run diagrams`; do not edit by hand (a test holds this file equal to the machine).';

function counts(d: Diagram) {
  return {
    states: d.nodes.length,
    transitions: d.edges.length,
    terminals: d.nodes.filter((n) => n.kind === 'final').map((n) => n.name),
  };
}

function markdownOf(entry: MachineEntry, mermaid: string): string {
  return [`# ${entry.title} state machine`, '', `${NOTICE} Source: [\`${entry.source}\`](../${entry.source}).`, '', entry.summary, '', '```mermaid', mermaid.trimEnd(), '```', '', `The same graph rendered by Graphviz: [${entry.name}.svg](./${entry.name}.svg). Legend: [README](./README.md#legend).`, ''].join('\n');
}

function readmeOf(entries: Array<{ entry: MachineEntry; diagram: Diagram }>): string {
  const lines = [
    '# State diagrams',
    '',
    `${NOTICE} Each diagram is drawn from the machine's own graph (its state nodes and transitions, read by \`machines/edges.ts\`), never from a hand-kept list, so it cannot drift from the code; \`test/diagrams.test.ts\` regenerates them in memory on every \`npm test\` and fails on any difference.`,
    '',
    '| Machine | States | Transitions | Terminals | Mermaid | SVG |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const { entry, diagram } of entries) {
    const c = counts(diagram);
    lines.push(`| [${entry.title}](./${entry.name}.md) | ${c.states} | ${c.transitions} | ${c.terminals.map((t) => `\`${t}\``).join(', ')} | [${entry.name}.mmd](./${entry.name}.mmd) | [${entry.name}.svg](./${entry.name}.svg) |`);
  }
  lines.push('');
  for (const { entry } of entries) lines.push(`## ${entry.title}`, '', `${entry.summary} Defined in [\`${entry.source}\`](../${entry.source}).`, '', `![${entry.title} state diagram](./${entry.name}.svg)`, '');
  const compounds = [...new Set(entries.flatMap(({ diagram }) => diagram.nodes.filter((n) => n.kind === 'compound').map((n) => n.name)))];
  lines.push(
    '## Legend',
    '',
    '- **Rounded box**: a state. The filled dot marks where the machine (or a compound state) starts.',
    `- **Outlined group** (${compounds.map((c) => `\`${c}\``).join(', ')}): a compound state. Its children are the states it contains; a transition leaving its border applies from every state inside it.`,
    '- **`any <name> state`** (SVG: a dashed note): the transitions declared on the compound itself, which apply from any state inside it. A loop on it journals the event in place; an arrow from it to a child moves there from any state inside. Mermaid draws the in-place loops of a top-level compound on the compound\'s own border instead, and uses the `any` state only for arrows into a child.',
    '- **Bold double box** (Mermaid: a bold state flowing to the end marker): a terminal (`type: "final"`). A terminal is forever: no transition leaves it.',
    '- **Arrow label** `EVENT [guard]`: the event that fires the transition and the named guard that must hold for it; no bracket means no guard.',
    '- **Loop**: a transition that keeps the state (the fact is journaled, the state does not move).',
    '- **Dashed red loop** `EVENT (refused)` (Mermaid: `/ refused`): the state declares the event only to refuse it, overriding its compound (for example, a Matter waiting on a Signer cannot be withdrawn from under the Gig).',
    '',
    'Names (SVG): every state\'s group is `id="state:<dotted path>"` (`class="state atomic|compound|final"`), and every drawn transition carries a `t:<edge key>` class per transition it draws (the key of `machines/edges.ts`, URI-encoded), so a page marks them by name: the inspector ([docs/inspector.md](../docs/inspector.md)) does.',
    '',
    'Coverage: `npm run test:model` replays paths through these graphs against the HTTP service, prints one line per machine (`<machine>: <covered>/<total> transitions, <n> paths`, total being the transitions drawn here) and writes `<machine>.coverage.json`: every transition, refusing edges included, with how many paths walked it. The docs page and the inspector draw it on these diagrams, walked and unwalked edges apart.',
    '',
    'Reviewing a machine change: `npm run diagrams -- --against <git ref>` compares each machine with the same machine at the ref, built from the ref\'s own sources, and writes `<machine>.diff.svg` (this drawing with the states and transitions added, removed and changed marked, and a legend) and `machines.diff.md`, the report a reviewer pastes ([docs/diagrams-and-model-tests.md](../docs/diagrams-and-model-tests.md#reviewing-a-machine-change)). Neither is committed.',
    '',
  );
  return lines.join('\n');
}

export async function generateDiagrams(entries: readonly MachineEntry[] = MACHINES): Promise<GeneratedFile[]> {
  const files: GeneratedFile[] = [];
  const diagrams: Array<{ entry: MachineEntry; diagram: Diagram }> = [];
  for (const entry of entries) {
    const diagram = diagramOf(entry.machine);
    diagrams.push({ entry, diagram });
    const mermaid = toMermaid(diagram);
    files.push({ path: `${OUT_DIR}/${entry.name}.mmd`, content: mermaid });
    files.push({ path: `${OUT_DIR}/${entry.name}.md`, content: markdownOf(entry, mermaid) });
    files.push({ path: `${OUT_DIR}/${entry.name}.svg`, content: await renderSvg(toDot(diagram)) });
  }
  files.push({ path: `${OUT_DIR}/README.md`, content: readmeOf(diagrams) });
  files.push({ path: `${OUT_DIR}/.gitignore`, content: GITIGNORE });
  return files;
}
