/**
 * Writes a machine's diagram as Graphviz DOT, for the SVG. Compound states are
 * clusters (the `open` compound is a visible box); each has an initial point
 * and, when transitions are declared on it, an `any <name> state` note whose
 * exits are clipped at the cluster's border. Terminals are bold double boxes;
 * refusing transitions are dashed red self-loops. Every drawn element carries
 * the name a page marks it by (`names.ts`).
 */
import { childrenOf, edgeLabel, nodeOf, type Diagram, type DiagramEdge, type DiagramNode } from './graph.ts';
import { anyId, initialEdgeId, initialId, stateId, transitionId, transitionToken } from './names.ts';

/** A DOT quoted string; a newline becomes DOT's centred line break. */
const q = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
const startOf = (compound: string | null) => (compound === null ? '__start' : `${compound}.__start`);
const anyOf = (compound: string) => `${compound}.__any`;
const clusterOf = (compound: string) => `cluster_${compound}`;

/** Event over guard: two short lines keep the layout compact. */
const labelOf = (label: string) => label.replace(' [', '\n[').replace(' / refused', '\n(refused)');

/** Graphviz writes `id` and `class` onto the element's SVG `<g>` (after its own class: `node`, `edge`, `cluster`). */
const named = (id: string, cls: string) => `id=${q(id)}, class=${q(cls)}`;

/** How a review of a machine change marks an element (`diff.ts`). */
export type DiffMark = 'added' | 'removed' | 'changed';

/**
 * Marks for a diagram of a change: each drawn apart by its line (thick,
 * dotted, double) and a glyph before its label (`+`, `−`, `~`), never by
 * colour alone; the SVG class `diff-<mark>` names it for a page or a test.
 */
export interface DotMarks {
  /** The drawing's title (the machine's id otherwise). */
  title?: string;
  states?: ReadonlyMap<string, DiffMark>;
  /** By edge key; `note` is a line added under the label in parentheses (what changed). */
  transitions?: ReadonlyMap<string, { mark: DiffMark; note?: string }>;
  /** Draw the legend of the marks. */
  legend?: boolean;
}

export const DIFF_GLYPH: Record<DiffMark, string> = { added: '+', removed: '−', changed: '~' };
const DIFF_EDGE: Record<DiffMark, string[]> = {
  added: ['penwidth=2.8', 'color="#1f7a4d"', 'fontcolor="#1f7a4d"'],
  removed: ['style=dotted', 'penwidth=1.6', 'color="#777777"', 'fontcolor="#555555"'],
  // Two thin parallel lines: Graphviz draws a colour list with an invisible middle as a double line.
  changed: ['color="#9a5b00:invis:#9a5b00"', 'penwidth=1.2', 'fontcolor="#7a4800"'],
};
const DIFF_NODE: Record<DiffMark, string> = {
  added: 'penwidth=3, color="#1f7a4d"',
  removed: 'style="rounded,dotted", penwidth=1.6, color="#777777", fontcolor="#555555"',
  changed: 'color="#9a5b00", penwidth=2',
};
const marked = (label: string, mark: DiffMark | undefined) => (mark ? `${DIFF_GLYPH[mark]} ${label}` : label);

function nodeLine(n: DiagramNode, mark?: DiffMark): string {
  const name = named(stateId(n.path), `state ${n.kind}${mark ? ` diff-${mark}` : ''}`);
  const label = `label=${q(marked(n.name, mark))}`;
  if (mark) {
    const final = n.kind === 'final' ? `, peripheries=${mark === 'changed' ? 3 : 2}, fillcolor="#eeeeee"` : '';
    const style = mark === 'removed' ? '' : `, style="rounded,filled${n.kind === 'final' ? ',bold' : ''}"`;
    return `${q(n.path)} [${label}, ${name}, ${DIFF_NODE[mark]}${style}${final}]`;
  }
  if (n.kind === 'final') return `${q(n.path)} [${label}, ${name}, style="rounded,filled,bold", fillcolor="#eeeeee", peripheries=2]`;
  return `${q(n.path)} [${label}, ${name}]`;
}

interface Drawn {
  from: string;
  to: string;
  attrs: string[];
  labels: string[];
  /** The edge keys of the transitions drawn here, in the order of `labels`. */
  keys: string[];
  /** Their kinds (`move`, `stays`, `refuses`), each once. */
  kinds: Array<DiagramEdge['kind']>;
  /** The review mark, when the diagram shows a change. */
  mark?: DiffMark;
}

/** Where an edge is drawn: compound-declared ones leave its `any` note; edges into a compound enter at its initial point. */
function drawn(d: Diagram, e: DiagramEdge, marks: DotMarks): Drawn {
  const attrs: string[] = [];
  const mark = marks.transitions?.get(e.key);
  if (mark) attrs.push(...(e.kind === 'refuses' && mark.mark !== 'removed' ? ['style=dashed'] : []), ...DIFF_EDGE[mark.mark]);
  else if (e.kind === 'refuses') attrs.push('style=dashed', 'color="#b03a2e"', 'fontcolor="#b03a2e"');
  let from = e.from;
  let to = e.to;
  if (e.fromCompound) {
    from = anyOf(e.from);
    if (e.exits) attrs.push(`ltail=${q(clusterOf(e.from))}`);
    else if (e.to === e.from) to = from;
  }
  const target = d.nodes.find((n) => n.path === to);
  if (target?.kind === 'compound') {
    attrs.push(`lhead=${q(clusterOf(target.path))}`);
    to = startOf(target.path);
  }
  const label = mark ? `${DIFF_GLYPH[mark.mark]} ${edgeLabel(e)}${mark.note ? `\n(${mark.note})` : ''}` : edgeLabel(e);
  return { from, to, attrs, labels: [label], keys: [e.key], kinds: [e.kind], ...(mark ? { mark: mark.mark } : {}) };
}

/**
 * Parallel edges drawn alike (the loops of `any open state`, the refusals of
 * `waiting_on_signer`) become one edge with a line per transition: Graphviz
 * would otherwise stack their labels on top of each other.
 */
function merged(d: Diagram, marks: DotMarks): Drawn[] {
  const out: Drawn[] = [];
  for (const e of d.edges.map((x) => drawn(d, x, marks))) {
    const twin = out.find((o) => o.from === e.from && o.to === e.to && o.attrs.join() === e.attrs.join());
    if (twin) {
      twin.labels.push(...e.labels);
      twin.keys.push(...e.keys);
      for (const k of e.kinds) if (!twin.kinds.includes(k)) twin.kinds.push(k);
    } else out.push(e);
  }
  return out;
}

function edgeLine(e: Drawn): string {
  const label = e.labels.length === 1 ? labelOf(e.labels[0]) : e.labels.map((l) => l.replace(' / refused', ' (refused)')).join('\n');
  const name = named(transitionId(e.keys[0]), ['transition', ...e.kinds, ...(e.mark ? [`diff-${e.mark}`] : []), ...e.keys.map(transitionToken)].join(' '));
  return `${q(e.from)} -> ${q(e.to)} [${[`label=${q(label)}`, name, ...e.attrs].join(', ')}]`;
}

/** The legend of a change's marks: a state and a transition drawn with each mark, and the mark's name. */
function legendLines(): string[] {
  const out = ['  subgraph "cluster_legend" {', '    label="legend"; style="rounded"; color="#999999"; fontsize=10; id="legend"; class="legend";'];
  for (const mark of ['added', 'removed', 'changed'] as const) {
    const words = { added: 'added', removed: 'removed', changed: 'changed (how, in brackets)' }[mark];
    out.push(`    ${q(`__legend.${mark}`)} [label=${q(`${DIFF_GLYPH[mark]} ${words}`)}, ${DIFF_NODE[mark]}${mark === 'removed' ? '' : ', style="rounded,filled"'}, fontsize=9];`);
    out.push(`    ${q(`__legend.${mark}.end`)} [shape=point, width=0.08, label=""];`);
    out.push(`    ${q(`__legend.${mark}`)} -> ${q(`__legend.${mark}.end`)} [label=${q(`${DIFF_GLYPH[mark]} EVENT`)}, ${DIFF_EDGE[mark].join(', ')}];`);
  }
  out.push('  }');
  return out;
}

export function toDot(d: Diagram, marks: DotMarks = {}): string {
  const out: string[] = [
    `digraph ${q(d.id)} {`,
    `  graph [compound=true, rankdir=TB, newrank=true, nodesep=0.45, ranksep=0.5, fontname="Helvetica", fontsize=14, labelloc=t, label=${q(marks.title ?? `${d.id} (generated from the machine)`)}];`,
    '  node [shape=box, style="rounded,filled", fillcolor="#ffffff", color="#333333", fontname="Helvetica", fontsize=11];',
    '  edge [color="#333333", fontname="Helvetica", fontsize=9, arrowsize=0.7];',
  ];
  const write = (scope: string | null, depth: number) => {
    const pad = '  '.repeat(depth);
    const scopeNode = scope === null ? null : nodeOf(d, scope);
    const initial = scope === null ? d.initial : scopeNode!.initial;
    out.push(`${pad}${q(startOf(scope))} [shape=point, width=0.12, label="", ${named(initialId(scope), 'initial')}];`);
    if (scopeNode?.hasAny) out.push(`${pad}${q(anyOf(scope!))} [shape=note, style="dashed", label=${q(`any ${scopeNode.name} state`)}, ${named(anyId(scope!), 'any')}];`);
    for (const node of childrenOf(d, scope)) {
      if (node.kind === 'compound') {
        const mark = marks.states?.get(node.path);
        const look = mark === 'removed' ? 'style="rounded,dotted"; color="#777777"; penwidth=1.6;' : mark === 'added' ? 'style="rounded"; color="#1f7a4d"; penwidth=3;' : mark === 'changed' ? 'style="rounded"; color="#9a5b00"; penwidth=2.4;' : 'style="rounded"; color="#555555"; penwidth=1.4;';
        out.push(`${pad}subgraph ${q(clusterOf(node.path))} {`);
        out.push(`${pad}  label=${q(marked(node.name, mark))}; ${look} id=${q(stateId(node.path))}; class="state compound${mark ? ` diff-${mark}` : ''}";`);
        write(node.path, depth + 1);
        out.push(`${pad}}`);
      } else {
        out.push(`${pad}${nodeLine(node, marks.states?.get(node.path))};`);
      }
    }
    if (initial) {
      const target = nodeOf(d, initial);
      const name = named(initialEdgeId(scope), 'initial');
      out.push(target.kind === 'compound' ? `${pad}${q(startOf(scope))} -> ${q(startOf(initial))} [lhead=${q(clusterOf(initial))}, ${name}];` : `${pad}${q(startOf(scope))} -> ${q(initial)} [${name}];`);
    }
  };
  write(null, 1);
  for (const e of merged(d, marks)) out.push(`  ${edgeLine(e)};`);
  if (marks.legend) out.push(...legendLines());
  out.push('}');
  return `${out.join('\n')}\n`;
}
