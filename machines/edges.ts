/**
 * Reads a machine's own transition graph as plain rows, so a test can hold a
 * machine equal to its transition table and the diagrams can be drawn from the
 * machine itself rather than from a hand-kept list.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';

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

const pathOf = (node: AnyStateNode): string => node.path.join('.');

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

export function machineEdges(machine: AnyStateMachine): Edge[] {
  const edges: Edge[] = [];
  for (const node of stateNodes(machine)) {
    for (const [event, transitions] of node.transitions) {
      for (const t of transitions) {
        const target = t.target?.[0];
        edges.push({
          from: pathOf(node),
          event,
          guard: guardName(t.guard),
          to: target ? pathOf(target) : null,
          refuses: !target && t.actions.length === 0,
        });
      }
    }
  }
  return edges;
}

/** Final states of the machine, by dotted path. */
export function finalStates(machine: AnyStateMachine): string[] {
  return stateNodes(machine).filter((n) => n.type === 'final').map(pathOf);
}
