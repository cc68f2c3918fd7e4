/**
 * A machine as plain, serializable rows: its states, its transitions (each
 * with its guard, its target, its actions and the facts they emit) and its
 * declared version. The diagrams are drawn from these rows, and a machine
 * change is reviewed by comparing the rows of two versions of it
 * (`diff.ts`): the rows of a machine at another git ref are read in a child
 * process from that ref's own sources (`at-ref.ts`) and arrive as this JSON.
 *
 * Read through xstate's own state nodes and transition definitions (via
 * `machines/edges.ts`), never from a hand-kept list. What an action does is
 * read off its code: its kind (`emit`, `assign`, a named action and its
 * params) and the fact kinds its code emits (`kind: '<kind>'` written in an
 * emit, as every machine here writes its facts); its code, as the runtime
 * prints it, tells a changed action from an unchanged one.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { edgeKey, edgeKind, machineTransitions, pathOf, stateNodes, type EdgeKind } from '../../machines/edges.ts';

export type StateType = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';

export interface StateRow {
  /** Dotted path (`open.review`). The root is not a row. */
  path: string;
  /** The last segment, as drawn. */
  name: string;
  type: StateType;
  /** For a compound: its initial child's dotted path. */
  initial: string | null;
}

export interface TransitionRow {
  /** `edgeKey`: `<from> <EVENT>[ [guard]] -> <to>`. */
  key: string;
  from: string;
  event: string;
  guard: string | null;
  to: string | null;
  kind: EdgeKind;
  /** The position among the transitions its state declares for its event (xstate tries them in this order). */
  order: number;
  /** Each action, named: `emit`, `assign(pendingGig)`, `commitStage({"from":"intake"})`, `attest`. */
  actions: string[];
  /** The fact kinds (and literal verbs) its actions' code emits, in order: `stage`, `terminal·withdrawn`. */
  emits: string[];
  /** The code of its actions, as the runtime prints it: equal code, equal behaviour. */
  code: string;
  /** The code of its guard, when the guard is named in the machine's setup. */
  guardCode: string | null;
}

export interface MachineModel {
  id: string;
  /** The version the machine's module declares (`MATTER_MACHINE_VERSION`), and that export's name. */
  version: number | null;
  versionExport: string | null;
  /** The machine's initial state (dotted path). */
  initial: string;
  /** The code of its context factory: a different initial context re-reads every stream. */
  context: string;
  states: StateRow[];
  transitions: TransitionRow[];
}

type Impl = { actions?: Record<string, unknown>; guards?: Record<string, unknown> };

const codeOf = (value: unknown): string => {
  if (typeof value === 'function') return String(value);
  if (value && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${k}:${codeOf(v)}`).join(',')}}`;
  return JSON.stringify(value) ?? 'undefined';
};

/** The fact kinds written in an action's code, each with its verb when that is a literal too. */
function factsIn(code: string, emitsOnly: boolean): string[] {
  // In a collect or a named action's code, only what follows an `emit(`; an emit's own expression is all fact.
  const scopes = emitsOnly ? code.split(/\bemit\(/).slice(1) : [code];
  const out: string[] = [];
  for (const scope of scopes) {
    const m = scope.match(/\bkind\s*:\s*(["'`])([^"'`]+)\1(?:\s*,\s*verb\s*:\s*(["'`])([^"'`$]+)\3)?/);
    if (m) out.push(m[4] ? `${m[2]}·${m[4]}` : m[2]);
  }
  return out;
}

interface ActionRead {
  name: string;
  emits: string[];
  code: string;
}

/** What one action of a transition is and emits; a named action is read through the machine's implementations. */
function readAction(action: unknown, impl: Impl): ActionRead {
  if (typeof action === 'string' || (action && typeof action === 'object' && 'type' in action && typeof (action as { type: unknown }).type === 'string' && typeof action !== 'function')) {
    const { type, params } = typeof action === 'string' ? { type: action, params: undefined } : (action as { type: string; params?: unknown });
    const implementation = impl.actions?.[type];
    const inner = implementation === undefined ? { name: type, emits: [], code: '' } : readAction(implementation, impl);
    const args = params === undefined ? '' : `(${typeof params === 'function' ? 'ƒ' : JSON.stringify(params)})`;
    return { name: `${type}${args}`, emits: inner.emits, code: `${type}${args}=${inner.code}` };
  }
  const fn = action as ((...a: unknown[]) => unknown) & { type?: string; event?: unknown; collect?: unknown; assignment?: unknown };
  switch (fn.type) {
    case 'xstate.emit': {
      const code = codeOf(fn.event);
      return { name: 'emit', emits: factsIn(code, false), code: `emit:${code}` };
    }
    case 'xstate.enqueueActions': {
      const code = codeOf(fn.collect);
      return { name: 'enqueueActions', emits: factsIn(code, true), code: `enqueue:${code}` };
    }
    case 'xstate.assign': {
      const keys = fn.assignment && typeof fn.assignment === 'object' ? Object.keys(fn.assignment) : [];
      return { name: `assign(${keys.join(', ')})`, emits: [], code: `assign:${codeOf(fn.assignment)}` };
    }
    default: {
      const code = codeOf(fn);
      return { name: fn.type ?? (fn.name || 'inline'), emits: factsIn(code, true), code };
    }
  }
}

const typeOf = (node: AnyStateNode): StateType => node.type as StateType;

const initialOf = (node: AnyStateNode): string | null => {
  const target = (node.initial as { target?: readonly AnyStateNode[] } | undefined)?.target?.[0];
  return target ? pathOf(target) : null;
};

/** The machine's rows; `version` is what its module declares (the reader of a module finds it, `versionIn`). */
export function modelOf(machine: AnyStateMachine, version: { value: number; export: string } | null = null): MachineModel {
  const impl = (machine as unknown as { implementations?: Impl }).implementations ?? {};
  const orders = new Map<string, number>();
  const transitions = machineTransitions(machine).map(({ edge, definition }) => {
    const slot = `${edge.from} ${edge.event}`;
    const order = orders.get(slot) ?? 0;
    orders.set(slot, order + 1);
    const actions = definition.actions.map((a) => readAction(a, impl));
    const guard = edge.guard ? impl.guards?.[edge.guard] : undefined;
    return {
      key: edgeKey(edge),
      from: edge.from,
      event: edge.event,
      guard: edge.guard,
      to: edge.to,
      kind: edgeKind(edge),
      order,
      actions: actions.map((a) => a.name),
      emits: actions.flatMap((a) => a.emits),
      code: actions.map((a) => a.code).join('\n'),
      guardCode: guard === undefined ? null : codeOf(guard),
    };
  });
  return {
    id: machine.id,
    version: version?.value ?? null,
    versionExport: version?.export ?? null,
    initial: initialOf(machine.root) ?? '',
    context: codeOf((machine.config as { context?: unknown }).context),
    states: stateNodes(machine)
      .filter((n) => n.path.length > 0)
      .map((n) => ({ path: pathOf(n), name: n.key, type: typeOf(n), initial: initialOf(n) })),
    transitions,
  };
}

/** A module's machine version: the one number it exports under a name ending `_MACHINE_VERSION`. */
export function versionIn(module: Record<string, unknown>): { value: number; export: string } | null {
  const found = Object.entries(module).filter(([name, value]) => /_MACHINE_VERSION$/.test(name) && typeof value === 'number');
  return found.length === 1 ? { value: found[0][1] as number, export: found[0][0] } : null;
}

/** A module's state machine: the export with xstate's shape, preferring the one whose id is `id`. */
export function machineIn(module: Record<string, unknown>, id?: string): AnyStateMachine | null {
  const machines = Object.values(module).filter((v): v is AnyStateMachine => !!v && typeof v === 'object' && 'root' in v && 'config' in v && typeof (v as { getInitialSnapshot?: unknown }).getInitialSnapshot === 'function');
  return machines.find((m) => m.id === id) ?? (machines.length === 1 ? machines[0] : null);
}
