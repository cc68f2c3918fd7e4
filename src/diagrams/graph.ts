/**
 * A machine's diagram, read from the machine itself (its state nodes and its
 * edges, via `machines/edges.ts`), in a renderer-neutral shape the Mermaid and
 * DOT writers share. Nothing here is hand-kept: add a state or a transition to
 * a machine and every diagram follows.
 *
 * Transitions declared on a compound state ("from any open state") are drawn
 * from a pseudo-state inside it, `any <name> state`: its exits leave the
 * compound's border, and its in-place and into-a-child transitions stay
 * inside, where both renderers draw them reliably.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { edgeKey, edgeKind, machineEdges, pathOf, stateNodes, type Edge, type EdgeKind } from '../../machines/edges.ts';

export type NodeKind = 'atomic' | 'compound' | 'final';

export interface DiagramNode {
  /** Dotted path (`open.review`); the root is not a node. */
  path: string;
  /** The last path segment, as drawn. */
  name: string;
  kind: NodeKind;
  /** Dotted path of the parent compound, or null at the top. */
  parent: string | null;
  /** For a compound: the dotted path of its initial child. */
  initial: string | null;
  /** For a compound: whether transitions are declared on it (it gets an `any` pseudo-state). */
  hasAny: boolean;
}

export interface DiagramEdge {
  /** The edge's one name (`edgeKey`), which the service's inspection and the tests also give it. */
  key: string;
  /** Dotted path of the declaring state. */
  from: string;
  /** Dotted path of the target; equals `from` for a transition that stays. */
  to: string;
  event: string;
  guard: string | null;
  kind: EdgeKind;
  /** Declared on a compound: drawn from its `any` pseudo-state. */
  fromCompound: boolean;
  /** The target lies outside the declaring compound (an exit across its border). */
  exits: boolean;
}

export interface Diagram {
  id: string;
  /** Dotted path of the root's initial state. */
  initial: string;
  nodes: DiagramNode[];
  edges: DiagramEdge[];
}

const initialOf = (n: AnyStateNode): string | null => {
  const target = (n.initial as { target?: readonly AnyStateNode[] } | undefined)?.target?.[0];
  return target ? pathOf(target) : null;
};

export function edgeLabel(e: Pick<DiagramEdge, 'event' | 'guard' | 'kind'>): string {
  return `${e.event}${e.guard ? ` [${e.guard}]` : ''}${e.kind === 'refuses' ? ' / refused' : ''}`;
}

export function diagramOf(machine: AnyStateMachine): Diagram {
  const all = stateNodes(machine).filter((n) => n.path.length > 0);
  const compound = new Set(all.filter((n) => n.type === 'compound' || n.type === 'parallel').map(pathOf));
  const edges: DiagramEdge[] = machineEdges(machine).map((e: Edge) => {
    const fromCompound = compound.has(e.from);
    const to = e.to ?? e.from;
    return {
      key: edgeKey(e),
      from: e.from,
      to,
      event: e.event,
      guard: e.guard,
      kind: edgeKind(e),
      fromCompound,
      exits: fromCompound && !to.startsWith(`${e.from}.`) && to !== e.from,
    };
  });
  const declaring = new Set(edges.filter((e) => e.fromCompound).map((e) => e.from));
  const nodes: DiagramNode[] = all.map((n) => ({
    path: pathOf(n),
    name: n.key,
    kind: n.type === 'final' ? 'final' : compound.has(pathOf(n)) ? 'compound' : 'atomic',
    parent: n.path.length > 1 ? n.path.slice(0, -1).join('.') : null,
    initial: compound.has(pathOf(n)) ? initialOf(n) : null,
    hasAny: declaring.has(pathOf(n)),
  }));
  const initial = initialOf(machine.root);
  if (!initial) throw new Error(`machine ${machine.id} has no initial state`);
  return { id: machine.id, initial, nodes, edges };
}

export const childrenOf = (d: Diagram, parent: string | null) => d.nodes.filter((n) => n.parent === parent);

/** The node at a dotted path (every edge end and every scope is one). */
export function nodeOf(d: Diagram, path: string): DiagramNode {
  const node = d.nodes.find((n) => n.path === path);
  if (!node) throw new Error(`diagram ${d.id} has no state "${path}"`);
  return node;
}
