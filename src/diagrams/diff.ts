/**
 * A machine change as rows, the way a schema change is reviewed (GitHub's
 * rendered diffs, `buf breaking`, `oasdiff`): states and transitions added,
 * removed and changed (a guard, a target, the facts an action emits, its
 * code), each saying whether it can re-read recorded history, and whether the
 * machine's version was raised where docs/versioning.md asks for it.
 *
 * Both sides are `MachineModel` rows (`model.ts`), so a machine at a git ref,
 * read from that ref's own sources, compares with the machine now; both are
 * named by the same `edgeKey`.
 *
 * What "can re-read history" means here (docs/versioning.md, "A change that
 * alters how past events fold"), read off the graph alone:
 * - a removed state, a state whose kind or initial child changed, a new
 *   initial state or initial context: streams that were (or passed) there
 *   fold elsewhere;
 * - a removed transition that accepted an event: a journaled event that took
 *   it no longer folds as it did (a removed refusing edge re-reads nothing:
 *   a refused event was never journaled);
 * - a changed transition (guard, target, emitted facts, actions' code);
 * - an added transition, refusing or not, for an event the state (or a state
 *   around it or inside it) already accepted: a journaled event that took the
 *   old transition may take this one. One for an event nothing there accepted
 *   re-reads nothing: no journal holds that event there.
 * It says "can": the replay test over the stored journals
 * (test/journals.replay.test.ts) is what decides.
 */
import type { CoverageFile } from './coverage.ts';
import type { DiffMark } from './dot.ts';
import type { MachineModel, StateRow, TransitionRow } from './model.ts';

export interface Change {
  element: 'machine' | 'state' | 'transition';
  mark: DiffMark;
  /** A state's path or a transition's key, as it is now (a removed one: as it was). */
  name: string;
  /** A changed transition's key before the change, when it differs. */
  was?: string;
  /** What changed, in words (`guard consentSatisfied removed`). */
  details: string[];
  /** Why it can re-read recorded history (docs/versioning.md), or null when every past fold stays as it was. */
  rereads: string | null;
}

export interface VersionVerdict {
  before: number | null;
  after: number | null;
  /** The export that declares it (`MATTER_MACHINE_VERSION`). */
  export: string | null;
  /** Some change can re-read recorded history, so docs/versioning.md asks for a new version. */
  needed: boolean;
  raised: boolean;
  /** Raised where needed (and never lowered). */
  ok: boolean;
  words: string;
}

export interface MachineDiff {
  id: string;
  /** The machine at the ref; null when it did not exist there. */
  before: MachineModel | null;
  after: MachineModel;
  changes: Change[];
  /** Added transitions no model path walks yet (`visualizations/<machine>.coverage.json` lists none walking them). */
  unwalked: string[];
  version: VersionVerdict;
}

const slotOf = (t: TransitionRow) => `${t.from} ${t.event}`;
const targetWords = (t: TransitionRow) => t.to ?? `(${t.kind})`;
const ancestorsOf = (path: string) => path.split('.').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('.'));
const within = (path: string, outer: string) => path === outer || path.startsWith(`${outer}.`) || ancestorsOf(path).includes(outer);

/** What differs between one transition before and after, worded; empty when nothing does. */
function transitionDetails(o: TransitionRow, n: TransitionRow, reordered: boolean): string[] {
  const out: string[] = [];
  if (o.guard !== n.guard) out.push(o.guard === null ? `guard ${n.guard} added` : n.guard === null ? `guard ${o.guard} removed` : `guard ${o.guard} → ${n.guard}`);
  else if (o.guardCode !== n.guardCode) out.push(`guard ${n.guard}'s code changed`);
  if (o.to !== n.to || o.kind !== n.kind) out.push(`target ${targetWords(o)} → ${targetWords(n)}`);
  if (o.emits.join() !== n.emits.join()) out.push(`emits ${n.emits.join(', ') || 'no fact'} (was ${o.emits.join(', ') || 'no fact'})`);
  else if (o.actions.join() !== n.actions.join()) out.push(`actions ${n.actions.join(', ') || 'none'} (was ${o.actions.join(', ') || 'none'})`);
  else if (o.code !== n.code) out.push(`its actions' code changed (${n.actions.join(', ')})`);
  if (reordered) out.push(`tried in another order among its state's ${n.event} transitions`);
  return out;
}

/**
 * Pairs the transitions of one state and event before and after: the same
 * key first, then the same guard (its target changed), then the same target
 * (its guard changed). What is left is removed and added.
 */
function pairSlot(before: TransitionRow[], after: TransitionRow[]) {
  const left = [...before];
  const right = [...after];
  const pairs: Array<[TransitionRow, TransitionRow]> = [];
  const take = (same: (o: TransitionRow, n: TransitionRow) => boolean) => {
    for (const n of [...right]) {
      const o = left.find((x) => same(x, n));
      if (!o) continue;
      pairs.push([o, n]);
      left.splice(left.indexOf(o), 1);
      right.splice(right.indexOf(n), 1);
    }
  };
  take((o, n) => o.key === n.key);
  take((o, n) => o.guard === n.guard);
  take((o, n) => o.to === n.to && o.kind === n.kind);
  // xstate tries a state's transitions for an event in order: a pair that moved past another changes which one is taken.
  const byNew = [...pairs].sort((a, b) => a[1].order - b[1].order);
  const reordered = new Set(byNew.filter(([o], i) => byNew.some(([p], j) => (j < i && p.order > o.order) || (j > i && p.order < o.order))).map(([, n]) => n));
  return { pairs, removed: left, added: right, reordered };
}

/** The old machine's transitions that accepted `event` in or around `from` (the state, its ancestors, its descendants). */
function acceptedBefore(before: MachineModel, from: string, event: string): TransitionRow[] {
  return before.transitions.filter((t) => t.event === event && t.kind !== 'refuses' && (t.from === from || ancestorsOf(from).includes(t.from) || within(t.from, from)));
}

function diffStates(before: MachineModel, after: MachineModel): Change[] {
  const out: Change[] = [];
  const old = new Map(before.states.map((s) => [s.path, s]));
  const now = new Map(after.states.map((s) => [s.path, s]));
  const describe = (s: StateRow) => (s.type === 'final' ? 'a terminal' : s.type === 'compound' ? `a compound state (starts in ${s.initial})` : `an ${s.type} state`);
  for (const s of before.states) if (!now.has(s.path)) out.push({ element: 'state', mark: 'removed', name: s.path, details: [`was ${describe(s)}`], rereads: `a stream that is (or passed) in ${s.path} no longer folds` });
  for (const s of after.states) {
    const o = old.get(s.path);
    if (!o) out.push({ element: 'state', mark: 'added', name: s.path, details: [describe(s)], rereads: null });
    else {
      const details: string[] = [];
      if (o.type !== s.type) details.push(`${o.type} → ${s.type}`);
      if (o.initial !== s.initial) details.push(`starts in ${s.initial ?? 'nothing'} (was ${o.initial ?? 'nothing'})`);
      if (details.length) out.push({ element: 'state', mark: 'changed', name: s.path, details, rereads: `a stream that entered ${s.path} now folds into another state` });
    }
  }
  return out;
}

function diffTransitions(before: MachineModel, after: MachineModel): Change[] {
  const slots = [...new Set([...before.transitions, ...after.transitions].map(slotOf))];
  const changes: Change[] = [];
  for (const slot of slots) {
    const { pairs, removed, added, reordered } = pairSlot(
      before.transitions.filter((t) => slotOf(t) === slot),
      after.transitions.filter((t) => slotOf(t) === slot),
    );
    for (const o of removed) {
      // A refusal removed lets what is declared around the state decide the event there again.
      const around = after.transitions.filter((t) => t.event === o.event && ancestorsOf(o.from).includes(t.from)).map((t) => `\`${t.key}\``);
      const refusal = `${o.from} no longer refuses ${o.event} itself${around.length ? `: ${around.join(' or ')} applies there now` : ''}`;
      changes.push({ element: 'transition', mark: 'removed', name: o.key, details: [o.kind === 'refuses' ? refusal : `emitted ${o.emits.join(', ') || 'no fact'}`], rereads: o.kind === 'refuses' ? null : `a journaled ${o.event} that took it in ${o.from} no longer folds as it did` });
    }
    for (const [o, n] of pairs) {
      const details = transitionDetails(o, n, reordered.has(n));
      if (details.length) changes.push({ element: 'transition', mark: 'changed', name: n.key, ...(o.key !== n.key ? { was: o.key } : {}), details, rereads: `a journaled ${n.event} in ${n.from} that took it folds differently now` });
    }
    const known = new Set(before.states.map((s) => s.path).concat(''));
    for (const n of added) {
      // From a state that is itself new, no journaled stream was ever there.
      const old = known.has(n.from) ? acceptedBefore(before, n.from, n.event) : [];
      const what = n.kind === 'refuses' ? `refuses ${n.event} in ${n.from}` : `emits ${n.emits.join(', ') || 'no fact'}`;
      const rereads = old.length ? `a journaled ${n.event} in ${n.from} took ${old.map((t) => `\`${t.key}\``).join(' or ')}; it ${n.kind === 'refuses' ? 'is refused there now' : 'can take this one now'}` : null;
      changes.push({ element: 'transition', mark: 'added', name: n.key, details: [what], rereads });
    }
  }
  // In the machine's order: states first, then transitions as the machine (now, else before) declares them.
  const order = new Map([...after.transitions, ...before.transitions].map((t, i) => [t.key, i] as const).reverse());
  return changes.sort((a, b) => (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0));
}

function diffMachineItself(before: MachineModel, after: MachineModel): Change[] {
  const out: Change[] = [];
  if (before.id !== after.id) out.push({ element: 'machine', mark: 'changed', name: after.id, details: [`its id is ${after.id} (was ${before.id})`], rereads: `every stream records the machine that opened it as ${before.id}@<version>` });
  if (before.initial !== after.initial) out.push({ element: 'machine', mark: 'changed', name: after.id, details: [`starts in ${after.initial} (was ${before.initial})`], rereads: 'every stream opened in the old initial state' });
  if (before.context !== after.context) out.push({ element: 'machine', mark: 'changed', name: after.id, details: ['its initial context is computed differently'], rereads: "every stream's folding starts from that context" });
  return out;
}

function verdict(before: MachineModel | null, after: MachineModel, changes: Change[]): VersionVerdict {
  const b = before?.version ?? null;
  const a = after.version;
  const name = after.versionExport ?? `${after.id}'s version`;
  const needed = changes.some((c) => c.rereads !== null);
  const raised = a !== null && b !== null && a > b;
  const lowered = a !== null && b !== null && a < b;
  const base = { before: b, after: a, export: after.versionExport, needed, raised };
  if (before === null) return { ...base, ok: true, words: `a new machine, at version ${a ?? '(none declared)'}` };
  if (b === null && a !== null && !changes.length) return { ...base, ok: true, words: `declared as ${a}; the ref declared none (a stream opened without one reads as version 1, docs/versioning.md)` };
  if (lowered) return { ...base, ok: false, words: `LOWERED ${b} → ${a}: a version is never taken back (streams opened by ${after.id}@${b} would be read by older code)` };
  if (!changes.length) return { ...base, ok: true, words: raised ? `raised ${b} → ${a}, though the machine did not change` : `${after.id}@${a}, unchanged` };
  const count = changes.filter((c) => c.rereads !== null).length;
  if (needed && !raised) return { ...base, ok: false, words: `NOT raised: ${after.id}@${a} before and after, but ${count} change${count === 1 ? '' : 's'} here can re-read recorded history (marked ⚠): raise ${name} to ${(a ?? 0) + 1} and keep the old definition or ship an upcaster (docs/versioning.md). The stored journals' replay (test/journals.replay.test.ts) decides: if every one still folds as recorded, the version may stay` };
  if (needed) return { ...base, ok: true, words: `raised ${b} → ${a}, as docs/versioning.md asks of a change that can re-read recorded history` };
  if (raised) return { ...base, ok: true, words: `raised ${b} → ${a}, though no change here re-reads recorded history (docs/versioning.md keeps the version for such a change)` };
  return { ...base, ok: true, words: `kept at ${a}: no change here re-reads recorded history (docs/versioning.md)` };
}

/** The change from `before` (null: the machine is new) to `after`; `coverage` is the after side's walks. */
export function diffMachine(before: MachineModel | null, after: MachineModel, coverage: CoverageFile | null): MachineDiff {
  const empty: MachineModel = { ...after, states: [], transitions: [] };
  const base = before ?? empty;
  const changes = [...(before ? diffMachineItself(before, after) : []), ...diffStates(base, after), ...diffTransitions(base, after)];
  const walked = new Set((coverage?.transitions ?? []).filter((t) => t.paths > 0).map((t) => t.key));
  const unwalked = changes.filter((c) => c.element === 'transition' && c.mark === 'added' && !walked.has(c.name)).map((c) => c.name);
  return { id: after.id, before, after, changes, unwalked, version: verdict(before, after, changes) };
}

/**
 * The drawing of a change: the machine as it is now, plus what was removed
 * (its states and transitions as they were), each element marked.
 */
export function unionOf(diff: MachineDiff): { model: MachineModel; states: Map<string, DiffMark>; transitions: Map<string, { mark: DiffMark; note?: string }> } {
  const removedStates = diff.changes.filter((c) => c.element === 'state' && c.mark === 'removed').map((c) => c.name);
  const removedKeys = new Set(diff.changes.filter((c) => c.element === 'transition' && c.mark === 'removed').map((c) => c.name));
  const before = diff.before;
  const model: MachineModel = {
    ...diff.after,
    states: [...diff.after.states, ...(before?.states.filter((s) => removedStates.includes(s.path)) ?? [])],
    transitions: [...diff.after.transitions, ...(before?.transitions.filter((t) => removedKeys.has(t.key)) ?? [])],
  };
  const states = new Map<string, DiffMark>();
  const transitions = new Map<string, { mark: DiffMark; note?: string }>();
  for (const c of diff.changes) {
    if (c.element === 'state') states.set(c.name, c.mark);
    if (c.element === 'transition') transitions.set(c.name, c.mark === 'changed' ? { mark: c.mark, note: c.details.join('; ') } : { mark: c.mark });
  }
  return { model, states, transitions };
}
