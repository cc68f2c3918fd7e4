/**
 * What the engine tells an operator, through the telemetry port
 * (`src/lib/telemetry.ts`): the actors kept in memory and what loads and
 * passivates them, and the work done after a commit (the outbox's effects,
 * webhook deliveries, the supply network's callbacks). Labels come from
 * closed sets the code names: the kind of entity (its machine), of effect,
 * outcomes and verdicts.
 */
import { counter, gauge, histogram } from '../lib/telemetry.ts';

export const residentActors = gauge({
  name: 'legalwork_actors_resident',
  help: 'Actors (Matters, Deadline Ladders, Enrollments) kept in memory, at most LEGALWORK_RESIDENT_ACTORS per process.',
  aggregate: 'sum',
});

export const actorLoads = counter<'kind' | 'from'>({
  name: 'legalwork_actor_loads_total',
  help: 'Actors rebuilt from the journal on first touch, by kind (its machine) and what they were rebuilt from: its snapshot row (a snapshot hit, then only the events after it replayed) or its whole stream (no usable row).',
  labelNames: ['kind', 'from'],
});

export const snapshotReads = counter<'result'>({
  name: 'legalwork_snapshot_reads_total',
  help: "Entity states read for a view or a page without making the entity resident: hit, answered from its snapshot row; miss, no usable row, so the entity was loaded from the journal.",
  labelNames: ['result'],
});

export const actorEvictions = counter({
  name: 'legalwork_actor_evictions_total',
  help: 'Idle actors passivated, least recently used first, to keep the resident pool within its bounds (actors and journal events held).',
});

export const outboxPending = gauge({
  name: 'legalwork_outbox_pending',
  help: 'Effects the journal asked for (Gig posts, catalog escalations) not yet delivered, held by this process (a first attempt under way, or a retry waiting). Processes on one database each count those they hold.',
  aggregate: 'sum',
});

export const outboxOldestSeconds = gauge({
  name: 'legalwork_outbox_oldest_pending_seconds',
  help: 'Age of the oldest undelivered effect this process holds, from the commit that journaled it; 0 when none is pending.',
  aggregate: 'max',
});

/** From 10 ms (a loopback receiver) to the 10 s a delivery may take. */
const DELIVERY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const outboxAttempts = histogram<'effect' | 'outcome'>({
  name: 'legalwork_outbox_attempt_seconds',
  help: "Attempts at an outbox effect (a Gig posted to the supply network, a catalog act's escalation), by effect and outcome (delivered, failed), and how long each took (its _count is the attempts).",
  labelNames: ['effect', 'outcome'],
  buckets: DELIVERY_BUCKETS,
});

export const webhookDeliveries = histogram<'outcome'>({
  name: 'legalwork_webhook_delivery_seconds',
  help: "Webhook delivery attempts, by outcome (delivered: a 2xx; failed: another status, a timeout or no connection), and how long each took to the receiver's answer (its _count is the attempts).",
  labelNames: ['outcome'],
  buckets: DELIVERY_BUCKETS,
});

export const supplyCallbacks = counter<'verdict'>({
  name: 'legalwork_supply_callbacks_total',
  help: "The supply network's callbacks (a Signer's answer to a Gig), by verdict: accepted (applied), replayed (the same callback again, answered as the first time), refused (the Matter or the answer refused it, 4xx), signature_rejected (401: unsigned, wrongly signed or too old), not_connected (403: no LEGALWORK_SUPPLY_SECRET).",
  labelNames: ['verdict'],
});
