/**
 * Reads a machine's own transition graph as plain rows, so a test can hold a
 * machine equal to its transition table and the diagrams can be drawn from the
 * machine itself rather than from a hand-kept list.
 */
import { getNextTransitions, type AnyMachineSnapshot, type AnyStateMachine, type AnyStateNode, type AnyTransitionDefinition, type EventObject, type StateValue } from 'xstate';

export interface Edge {
  /** Dotted path of the state that declares the transition (`open.review`). */
  from: string;
  event: string;
  guard: string | null;
  /** Dotted target path; `null` for a targetless transition (the state stays). */
  to: string | null;
  /** A targetless transition with no actions: declared only to refuse the event. */
  refuses: boolean;
}

/** What a transition does: moves to its target, stays (targetless, with actions), or only refuses the event. */
export type EdgeKind = 'move' | 'stays' | 'refuses';

export const edgeKind = (e: Edge): EdgeKind => (e.to === null ? (e.refuses ? 'refuses' : 'stays') : 'move');

/** A state node's dotted path (`open.review`; `''` for the root). */
export const pathOf = (node: AnyStateNode): string => node.path.join('.');

/** The state a snapshot is in, as the dotted path of its state node (`open.waiting_on_signer`); parallel regions joined by commas. */
export function statePath(value: StateValue): string {
  if (typeof value === 'string') return value;
  return Object.entries(value)
    .map(([key, inner]) => (inner === undefined || (typeof inner === 'object' && Object.keys(inner).length === 0) ? key : `${key}.${statePath(inner as StateValue)}`))
    .join(',');
}

function guardName(guard: unknown): string | null {
  if (!guard) return null;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && guard !== null && 'type' in guard) return String((guard as { type: unknown }).type);
  return 'inline';
}

export function stateNodes(machine: AnyStateMachine): AnyStateNode[] {
  const out: AnyStateNode[] = [];
  const walk = (node: AnyStateNode) => {
    out.push(node);
    for (const child of Object.values(node.states)) walk(child as AnyStateNode);
  };
  walk(machine.root);
  return out;
}

/** One transition as a row, beside xstate's own definition of it (what `getTransitionData` selects). */
export interface MachineTransition {
  edge: Edge;
  definition: AnyTransitionDefinition;
}

export function machineTransitions(machine: AnyStateMachine): MachineTransition[] {
  const out: MachineTransition[] = [];
  for (const node of stateNodes(machine)) {
    for (const [event, transitions] of node.transitions) {
      for (const t of transitions) {
        const target = t.target?.[0];
        const edge: Edge = {
          from: pathOf(node),
          event,
          guard: guardName(t.guard),
          to: target ? pathOf(target) : null,
          refuses: !target && t.actions.length === 0,
        };
        out.push({ edge, definition: t });
      }
    }
  }
  return out;
}

export function machineEdges(machine: AnyStateMachine): Edge[] {
  return machineTransitions(machine).map((t) => t.edge);
}

/**
 * A readable, stable name for an edge: `open.review ESCALATE -> open.waiting_on_signer`
 * (`<from> <EVENT>[ [guard]] -> <to>`; a targetless edge's target is its kind,
 * `(stays)` or `(refuses)`). The one name the service (the inspection), the
 * tests (coverage, decider specs) and the diagrams give an edge.
 */
export function edgeKey(e: Edge): string {
  const guard = e.guard ? ` [${e.guard}]` : '';
  const to = e.to ?? `(${edgeKind(e)})`;
  return `${e.from} ${e.event}${guard} -> ${to}`;
}

export interface EdgeIndex {
  /** Every edge of the machine's graph, by key, in declaration order. */
  keys: string[];
  /** The edges (by key) a snapshot selects for an event: what sending it exercises, or (an edge declared only to refuse) what refuses it. */
  selected(snapshot: AnyMachineSnapshot, event: EventObject): string[];
  /** The edges (by key) the snapshot's active states declare for an event type, whatever their guards say (innermost state first). */
  declared(snapshot: AnyMachineSnapshot, eventType: string): string[];
}

const indexes = new WeakMap<AnyStateMachine, EdgeIndex>();

/** Indexes a machine's transition definitions by the key of their edge (built once per machine). */
export function edgeIndex(machine: AnyStateMachine): EdgeIndex {
  const cached = indexes.get(machine);
  if (cached) return cached;
  const transitions = machineTransitions(machine);
  const keyOf = new Map<unknown, string>(transitions.map((t) => [t.definition, edgeKey(t.edge)]));
  const named = (t: unknown): string => {
    const key = keyOf.get(t);
    if (!key) throw new Error(`edge index of ${machine.id}: a selected transition is not among the machine's edges`);
    return key;
  };
  const index: EdgeIndex = {
    keys: transitions.map((t) => edgeKey(t.edge)),
    selected(snapshot, event) {
      return (machine.getTransitionData(snapshot as never, event as never) ?? []).map(named);
    },
    declared(snapshot, eventType) {
      return getNextTransitions(snapshot).filter((t) => t.eventType === eventType).map(named);
    },
  };
  indexes.set(machine, index);
  return index;
}

/** Final states of the machine, by dotted path. */
export function finalStates(machine: AnyStateMachine): string[] {
  return stateNodes(machine).filter((n) => n.type === 'final').map(pathOf);
}
