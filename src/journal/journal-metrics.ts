/**
 * What the journal tells an operator, through the telemetry port
 * (`src/lib/telemetry.ts`): how long an append waits for its transaction to
 * be durable, how many appends and event rows each transaction groups (the
 * group commit), how long each read statement takes, how often a kept answer
 * row serves a read, and how often a process takes over a lease another
 * process held. Labelled by adapter and by the store's own method names:
 * closed sets, never a stream, grain or lease name.
 */
import { counter, histogram, metricsOn, secondsSince } from '../lib/telemetry.ts';

export type AdapterName = 'sqlite' | 'postgresql' | 'memory';

/** From a tenth of a millisecond (a read served from the page cache) to 5 s (a journal in trouble). */
const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Appends or rows grouped into one transaction. */
const GROUP_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

export const appendSeconds = histogram<'adapter'>({
  name: 'legalwork_journal_append_seconds',
  help: "How long one command's append took to be durable, from its call to its commit (the wait for its group commit included).",
  labelNames: ['adapter'],
  buckets: LATENCY_BUCKETS,
});

export const commitSeconds = histogram<'adapter'>({
  name: 'legalwork_journal_commit_seconds',
  help: 'How long one transaction of grouped appends took to commit (SQLite: its writer thread; PostgreSQL: the batch and COMMIT round trips).',
  labelNames: ['adapter'],
  buckets: LATENCY_BUCKETS,
});

export const commitAppends = histogram<'adapter'>({
  name: 'legalwork_journal_commit_appends',
  help: "How many commands' appends one transaction grouped (group commit: one durable write for all of them).",
  labelNames: ['adapter'],
  buckets: GROUP_BUCKETS,
});

export const commitEvents = histogram<'adapter'>({
  name: 'legalwork_journal_commit_events',
  help: 'How many event rows one transaction wrote.',
  labelNames: ['adapter'],
  buckets: GROUP_BUCKETS,
});

export const readSeconds = histogram<'adapter' | 'statement'>({
  name: 'legalwork_journal_read_seconds',
  help: "Read statements, by the journal store's method that ran them (readStream, readHead, readTail, readAnswer, listItems, …), and how long each took (its _count is the statements run).",
  labelNames: ['adapter', 'statement'],
  buckets: LATENCY_BUCKETS,
});

export const answerRows = counter<'adapter' | 'result'>({
  name: 'legalwork_journal_answer_rows_total',
  help: 'Kept answer rows asked for (a Matter read by id, a page of Matters item by item): hit, sent as stored; miss, built from the journal.',
  labelNames: ['adapter', 'result'],
});

export const leaseHandovers = counter<'lease'>({
  name: 'legalwork_lease_handovers_total',
  help: 'Leases this process took over from another process that held them and stopped renewing (died or stalled): outbox intents and webhook endpoints.',
  labelNames: ['lease'],
});

/** The kind of work a lease name holds (`outbox:<grain>:<seq>`, `webhook:<id>`): its prefix, from a closed set. */
export function leaseKind(name: string): string {
  const prefix = name.slice(0, name.indexOf(':'));
  return prefix === 'outbox' ? 'outbox_intent' : prefix === 'webhook' ? 'webhook_endpoint' : 'other';
}

/** A transaction of grouped appends committed: its duration since `startedMs` (a `performance.now()`), how many appends it held, and their event rows (counted only when recorded). */
export function groupCommitted(adapter: AdapterName, appends: number, countEvents: () => number, startedMs: number): void {
  if (!metricsOn() || appends === 0) return;
  const labels = { adapter };
  commitSeconds.observe(secondsSince(startedMs), labels);
  commitAppends.observe(appends, labels);
  commitEvents.observe(countEvents(), labels);
}
