/**
 * Writes a machine's diagram as a Mermaid `stateDiagram-v2`. Every state sits
 * in its compound's block; every transition is written in the block of the
 * innermost compound holding both of its ends, labelled `EVENT [guard]`.
 * Terminals flow to `[*]` and carry the `terminal` class; refusing
 * transitions are self-loops labelled `/ refused`. The layouts were checked
 * in Mermaid 11's renderer; the constructs it draws badly are avoided.
 */
import { childrenOf, edgeLabel, nodeOf, type Diagram, type DiagramEdge, type DiagramNode } from './graph.ts';

const ANY = '__any';
const idOf = (path: string) => path.replace(/\./g, '_');
const anyId = (compound: string) => `${idOf(compound)}${ANY}`;
const anyLabel = (node: DiagramNode) => `any ${node.name} state`;

/** The innermost compound containing both ends (null: the top level). */
function scopeOf(a: string, b: string): string | null {
  const pa = a.split('.');
  const pb = b.split('.');
  const common: string[] = [];
  for (let i = 0; i < Math.min(pa.length, pb.length) && pa[i] === pb[i]; i++) common.push(pa[i]);
  // A state is not its own scope: its transitions are drawn in its parent's block.
  if (common.length === pa.length || common.length === pb.length) common.pop();
  return common.length ? common.join('.') : null;
}

interface Line {
  from: string;
  to: string;
  label: string;
  scope: string | null;
}

/**
 * Mermaid draws a loop on a top-level compound cleanly, but not one on a
 * nested compound, nor an arrow from a compound into its own child: those
 * start from the `any <name> state` pseudo-state inside it instead.
 */
const viaAny = (e: DiagramEdge) => e.fromCompound && !e.exits && (e.to !== e.from || e.from.includes('.'));

function lineOf(d: Diagram, e: DiagramEdge): Line {
  if (!viaAny(e)) return { from: idOf(e.from), to: idOf(e.to), label: edgeLabel(e), scope: e.to === e.from ? nodeOf(d, e.from).parent : scopeOf(e.from, e.to) };
  const to = e.to === e.from ? anyId(e.from) : idOf(e.to);
  return { from: anyId(e.from), to, label: edgeLabel(e), scope: e.from };
}

/**
 * Self-loops on one state become one loop with a line per transition: the
 * layout engine otherwise stacks their labels over each other.
 */
function mergeLoops(lines: Line[]): Line[] {
  const out: Line[] = [];
  for (const l of lines) {
    const twin = l.from === l.to ? out.find((o) => o.from === l.from && o.to === l.to) : undefined;
    if (twin) twin.label = `${twin.label}<br/>${l.label}`;
    else out.push({ ...l });
  }
  return out;
}

export function toMermaid(d: Diagram): string {
  const lines = mergeLoops(d.edges.map((e) => lineOf(d, e)));
  const withAny = new Set(d.edges.filter(viaAny).map((e) => e.from));
  const out: string[] = ['stateDiagram-v2', '  direction TB'];
  const write = (scope: string | null, depth: number) => {
    const pad = '  '.repeat(depth);
    const initial = scope === null ? d.initial : nodeOf(d, scope).initial;
    if (initial) out.push(`${pad}[*] --> ${idOf(initial)}`);
    // Declared first, so the layout ranks the `any` pseudo-state at the top of its compound.
    if (scope !== null && withAny.has(scope)) {
      out.push(`${pad}state "${anyLabel(nodeOf(d, scope))}" as ${anyId(scope)}`);
    }
    for (const node of childrenOf(d, scope)) {
      if (node.kind === 'compound') {
        out.push(`${pad}state "${node.name}" as ${idOf(node.path)}`);
        out.push(`${pad}state ${idOf(node.path)} {`);
        write(node.path, depth + 1);
        out.push(`${pad}}`);
      } else {
        out.push(`${pad}state "${node.name}" as ${idOf(node.path)}`);
      }
    }
    for (const l of lines.filter((x) => x.scope === scope)) out.push(`${pad}${l.from} --> ${l.to} : ${l.label}`);
    for (const t of childrenOf(d, scope).filter((n) => n.kind === 'final')) out.push(`${pad}${idOf(t.path)} --> [*]`);
  };
  write(null, 1);
  const terminals = d.nodes.filter((n) => n.kind === 'final');
  out.push('  classDef terminal font-weight:bold,stroke-width:3px');
  if (terminals.length) out.push(`  class ${terminals.map((t) => idOf(t.path)).join(',')} terminal`);
  return `${out.join('\n')}\n`;
}
