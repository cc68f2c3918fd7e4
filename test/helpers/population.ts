/**
 * The population a grain's journal says, folded here from its events, one
 * stream at a time, through the machine (a plain XState actor, none of the
 * engine's folds): the oracle the population doors are held to.
 *
 * - a stream's state is where its causes take the machine; it entered it
 *   with the last cause that changed the state's dotted path (the opening,
 *   when none did);
 * - a transition is counted each time a cause selects it (`edgeIndex`,
 *   the one name of an edge);
 * - a facet is counted for each stream still active that shows it.
 */
import { createActor, type AnyMachineSnapshot } from 'xstate';
import { edgeIndex, statePath } from '../../machines/edges.ts';
import type { EntityDefinition } from '../../src/engine/entity.ts';
import { KINDS, type PopulationKind } from '../../src/engine/population.ts';
import { facetsOf } from '../../src/engine/standing.ts';
import type { JournalEvent, JournalStore } from '../../src/journal/store.ts';

/** A population reduced to what the journal decides: counts, the oldest of each state, counts of edges and facets (zeros left out). */
export interface Gathered {
  total: number;
  states: Record<string, { count: number; oldest: string; since: number }>;
  transitions: Record<string, number>;
  facets: Record<string, number>;
}

/** Folds every stream of the kind among a grain's events (in seq order). */
export function foldGathered(events: JournalEvent[], kind: PopulationKind): Gathered {
  const { definition } = KINDS[kind];
  const streams = new Map<string, JournalEvent[]>();
  for (const e of events) streams.set(e.stream, [...(streams.get(e.stream) ?? []), e]);
  const out: Gathered = { total: 0, states: {}, transitions: {}, facets: {} };
  for (const [stream, journal] of streams) {
    journal.sort((x, y) => x.version - y.version);
    if (journal[0].version !== 1 || journal[0].kind !== definition.openedKind) continue;
    const folded = foldStream(definition, journal);
    out.total += 1;
    const id = KINDS[kind].subject(stream, '', JSON.stringify({ context: folded.snapshot.context })).id;
    const at = out.states[folded.path];
    if (!at) out.states[folded.path] = { count: 1, oldest: id, since: folded.since };
    else {
      at.count += 1;
      if (folded.since < at.since) Object.assign(at, { oldest: id, since: folded.since });
    }
    for (const edge of folded.transitions) out.transitions[edge] = (out.transitions[edge] ?? 0) + 1;
    if (folded.snapshot.status !== 'done') for (const facet of facetsOf(definition.machine)) if (facet.shows(folded.snapshot)) out.facets[facet.name] = (out.facets[facet.name] ?? 0) + 1;
  }
  return out;
}

function foldStream(definition: EntityDefinition, journal: JournalEvent[]) {
  const index = edgeIndex(definition.machine);
  const actor = createActor(definition.machine, { input: (journal[0].cause as { input: unknown }).input } as never);
  actor.start();
  let since = journal[0].seq;
  const transitions: string[] = [];
  for (const e of journal.slice(1)) {
    if (!e.cause) continue;
    const before = actor.getSnapshot() as AnyMachineSnapshot;
    transitions.push(...index.selected(before, e.cause as never));
    actor.send(e.cause as never);
    if (statePath((actor.getSnapshot() as AnyMachineSnapshot).value) !== statePath(before.value)) since = e.seq;
  }
  const snapshot = actor.getSnapshot() as AnyMachineSnapshot;
  actor.stop();
  return { snapshot, path: statePath(snapshot.value), since, transitions };
}

/** A population door's answer, reduced the same way. */
export function gatheredOf(body: any): Gathered {
  const out: Gathered = { total: 0, states: {}, transitions: {}, facets: {} };
  if (body.type === 'EMPTY') return out;
  const p = body.population;
  out.total = p.total;
  for (const s of p.states) if (s.count) out.states[s.path] = { count: s.count, oldest: s.oldest.id, since: s.oldest.seq };
  for (const t of p.transitions) if (t.count) out.transitions[t.edge] = t.count;
  for (const f of p.facets) if (f.count) out.facets[f.name] = f.count;
  return out;
}

/** Every event of a grain, from the journal. */
export async function grainEvents(journal: JournalStore, grain: string): Promise<JournalEvent[]> {
  const events: JournalEvent[] = [];
  for (;;) {
    const page = await journal.readTail(grain, { after: events.length ? events[events.length - 1].seq : 0, limit: 1000, feed: 'timeline' });
    events.push(...page);
    if (page.length < 1000) return events;
  }
}
