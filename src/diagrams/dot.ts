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

function nodeLine(n: DiagramNode): string {
  const name = named(stateId(n.path), `state ${n.kind}`);
  if (n.kind === 'final') return `${q(n.path)} [label=${q(n.name)}, ${name}, style="rounded,filled,bold", fillcolor="#eeeeee", peripheries=2]`;
  return `${q(n.path)} [label=${q(n.name)}, ${name}]`;
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
}

/** Where an edge is drawn: compound-declared ones leave its `any` note; edges into a compound enter at its initial point. */
function drawn(d: Diagram, e: DiagramEdge): Drawn {
  const attrs: string[] = [];
  if (e.kind === 'refuses') attrs.push('style=dashed', 'color="#b03a2e"', 'fontcolor="#b03a2e"');
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
  return { from, to, attrs, labels: [edgeLabel(e)], keys: [e.key], kinds: [e.kind] };
}

/**
 * Parallel edges drawn alike (the loops of `any open state`, the refusals of
 * `waiting_on_signer`) become one edge with a line per transition: Graphviz
 * would otherwise stack their labels on top of each other.
 */
function merged(d: Diagram): Drawn[] {
  const out: Drawn[] = [];
  for (const e of d.edges.map((x) => drawn(d, x))) {
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
  const name = named(transitionId(e.keys[0]), ['transition', ...e.kinds, ...e.keys.map(transitionToken)].join(' '));
  return `${q(e.from)} -> ${q(e.to)} [${[`label=${q(label)}`, name, ...e.attrs].join(', ')}]`;
}

export function toDot(d: Diagram): string {
  const out: string[] = [
    `digraph ${q(d.id)} {`,
    `  graph [compound=true, rankdir=TB, newrank=true, nodesep=0.45, ranksep=0.5, fontname="Helvetica", fontsize=14, labelloc=t, label=${q(`${d.id} (generated from the machine)`)}];`,
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
        out.push(`${pad}subgraph ${q(clusterOf(node.path))} {`);
        out.push(`${pad}  label=${q(node.name)}; style="rounded"; color="#555555"; penwidth=1.4; id=${q(stateId(node.path))}; class="state compound";`);
        write(node.path, depth + 1);
        out.push(`${pad}}`);
      } else {
        out.push(`${pad}${nodeLine(node)};`);
      }
    }
    if (initial) {
      const target = nodeOf(d, initial);
      const name = named(initialEdgeId(scope), 'initial');
      out.push(target.kind === 'compound' ? `${pad}${q(startOf(scope))} -> ${q(startOf(initial))} [lhead=${q(clusterOf(initial))}, ${name}];` : `${pad}${q(startOf(scope))} -> ${q(initial)} [${name}];`);
    }
  };
  write(null, 1);
  for (const e of merged(d)) out.push(`  ${edgeLine(e)};`);
  out.push('}');
  return `${out.join('\n')}\n`;
}
