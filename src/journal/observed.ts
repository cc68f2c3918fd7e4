/**
 * A journal store that reports what it does through the telemetry port: every
 * append timed and traced (a span with OpenTelemetry's database attributes,
 * child of the command that appends), and, where metrics are on, every read
 * statement timed by the store method that ran it and the kept answer rows
 * counted as hits or misses. The same store underneath, whatever the
 * adapter: a decorator, so the adapters keep no telemetry of their own but
 * their group commit's.
 *
 * With metrics and traces both off the store is answered as it is: nothing
 * stands between a command and its journal.
 */
import { metricsOn, secondsSince, tracing, tracingOn } from '../lib/telemetry.ts';
import { answerRows, appendSeconds, readSeconds, type AdapterName } from './journal-metrics.ts';
import type { JournalStore } from './store.ts';

/** The store's reads, by the method name a metric labels them with. */
const READS = new Set<string>(['readStream', 'readSnapshot', 'readHead', 'readTail', 'readTailEntries', 'readAnswer', 'listItems', 'latestSeq', 'streamVersion', 'streamHeads', 'entityHeads', 'countStreams', 'readIntents', 'pendingIntents', 'population', 'streamsInState']);

/** OpenTelemetry's database semantic conventions: the system by its registered name. */
const DB_SYSTEM = { sqlite: 'sqlite', postgresql: 'postgresql', memory: 'other_sql' } as const satisfies Record<AdapterName, string>;

export function observedJournal(store: JournalStore, adapter: AdapterName): JournalStore {
  if (!metricsOn() && !tracingOn()) return store;
  const labels = { adapter };
  const timeReads = metricsOn();
  const appendAttributes = { 'db.system.name': DB_SYSTEM[adapter], 'db.operation.name': 'append', 'db.collection.name': 'events' } as const;
  const append: JournalStore['append'] = (grain, writes) =>
    tracing.span(
      'append events',
      appendAttributes,
      async (span) => {
        const started = performance.now();
        try {
          const written = await store.append(grain, writes);
          span.set('legalwork.journal.events', written.length);
          return written;
        } finally {
          appendSeconds.observe(secondsSince(started), labels);
        }
      },
      { kind: 'client' },
    );
  const read = (name: string, method: (...args: unknown[]) => Promise<unknown>) => {
    const statement = { adapter, statement: name };
    return async (...args: unknown[]) => {
      const started = performance.now();
      try {
        const result = await method.apply(store, args);
        if (name === 'readAnswer') answerRows.inc({ adapter, result: result ? 'hit' : 'miss' });
        else if (name === 'listItems') countItems(adapter, result as Array<{ item: string | null }>);
        return result;
      } finally {
        readSeconds.observe(secondsSince(started), statement);
      }
    };
  };
  // Each method bound once: a call through the store costs one lookup more, and allocates nothing.
  const methods = new Map<PropertyKey, unknown>([['append', append]]);
  return new Proxy(store, {
    get(target, property) {
      const known = methods.get(property);
      if (known) return known;
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      // Reads are timed, not traced: with metrics off they pass as they are.
      const timed = timeReads && typeof property === 'string' && READS.has(property);
      const bound = timed ? read(property, value as (...args: unknown[]) => Promise<unknown>) : (value as (...args: unknown[]) => unknown).bind(target);
      methods.set(property, bound);
      return bound;
    },
  });
}

function countItems(adapter: AdapterName, items: Array<{ item: string | null }>): void {
  let hits = 0;
  for (const { item } of items) if (item !== null) hits++;
  if (hits) answerRows.inc({ adapter, result: 'hit' }, hits);
  if (items.length > hits) answerRows.inc({ adapter, result: 'miss' }, items.length - hits);
}
