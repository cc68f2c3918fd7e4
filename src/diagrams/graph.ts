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
import type { AnyStateMachine } from 'xstate';
import type { EdgeKind } from '../../machines/edges.ts';
import { modelOf, type MachineModel } from './model.ts';

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

export function edgeLabel(e: Pick<DiagramEdge, 'event' | 'guard' | 'kind'>): string {
  return `${e.event}${e.guard ? ` [${e.guard}]` : ''}${e.kind === 'refuses' ? ' / refused' : ''}`;
}

export const diagramOf = (machine: AnyStateMachine): Diagram => diagramFrom(modelOf(machine));

/**
 * The diagram of a machine's rows (`model.ts`): the machine as it is now, or
 * as another git ref had it, or both at once for a review of a change.
 */
export function diagramFrom(model: Pick<MachineModel, 'id' | 'initial' | 'states' | 'transitions'>): Diagram {
  const compound = new Set(model.states.filter((n) => n.type === 'compound' || n.type === 'parallel').map((n) => n.path));
  const edges: DiagramEdge[] = model.transitions.map((e) => {
    const fromCompound = compound.has(e.from);
    const to = e.to ?? e.from;
    return {
      key: e.key,
      from: e.from,
      to,
      event: e.event,
      guard: e.guard,
      kind: e.kind,
      fromCompound,
      exits: fromCompound && !to.startsWith(`${e.from}.`) && to !== e.from,
    };
  });
  const declaring = new Set(edges.filter((e) => e.fromCompound).map((e) => e.from));
  const nodes: DiagramNode[] = model.states.map((n) => ({
    path: n.path,
    name: n.name,
    kind: n.type === 'final' ? 'final' : compound.has(n.path) ? 'compound' : 'atomic',
    parent: n.path.includes('.') ? n.path.slice(0, n.path.lastIndexOf('.')) : null,
    initial: compound.has(n.path) ? n.initial : null,
    hasAny: declaring.has(n.path),
  }));
  if (!model.initial) throw new Error(`machine ${model.id} has no initial state`);
  return { id: model.id, initial: model.initial, nodes, edges };
}

export const childrenOf = (d: Diagram, parent: string | null) => d.nodes.filter((n) => n.parent === parent);

/** The node at a dotted path (every edge end and every scope is one). */
export function nodeOf(d: Diagram, path: string): DiagramNode {
  const node = d.nodes.find((n) => n.path === path);
  if (!node) throw new Error(`diagram ${d.id} has no state "${path}"`);
  return node;
}
