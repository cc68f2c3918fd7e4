/**
 * Retention (issue 46): what the journal keeps, and for how long, is part of
 * its contract. Every fact of the top level is kept for ever. A sandbox
 * grain (a workspace, Tenant or firm: keyless, synthetic, TTL-bound) is
 * purged once it has expired and a grace period has passed
 * (`src/engine/grain-retention.ts` decides when): every row it wrote goes,
 * in bounded steps, and a tombstone stays, so its id is refused for ever and
 * nothing is ever written under it again.
 *
 * What "every row it wrote" is, the journal reads off the facts themselves,
 * knowing nothing of the domain beyond these names:
 *
 * - A grain that may be purged is one whose own stream (`stream === grain`)
 *   opened with one of `EXPIRING_OPENINGS`, its `data.expiresAt` saying when
 *   it expires. No other grain can be purged: the top level's grains (a key's
 *   records) never open that way, and an adapter refuses to purge them
 *   (`NotPurgeable`).
 * - Its rows: its events, and beside them the caches of its streams
 *   (snapshot and answer rows with their marks, the population's ledger and
 *   transition counts, the outbox's unsettled intents).
 * - The streams it holds in grains no route serves (an Idempotency-Key's
 *   record, a webhook endpoint with its delivery attempts, the outbox's
 *   record of an effect it delivered for the grain): each such
 *   stream's opening (one of `HELD_OPENINGS`) names the grain it is held for
 *   in `data.heldBy`, and goes with it.
 *
 * A purge is resumable: the tombstone is written by the first step, each
 * step deletes at most a budget of rows in one short transaction, and a
 * purge cut short (a crash, another process taking over) goes on from what
 * is left.
 */

import { DELIVERY_KIND } from './store.ts';

/** The kinds of fact that open a TTL-bound grain on its own stream (`src/engine/workspaces.ts` journals them as `<kind>.opened`). */
export const EXPIRING_OPENINGS = ['workspace.opened', 'tenant.opened', 'firm.opened'] as const;

/** The field of a held stream's opening fact that names the grain it is held for. */
export const HELD_BY = 'heldBy';

/** The kinds of fact that open a stream held for a grain in another one (`src/engine/idempotency.ts`, `src/engine/webhooks.ts`, the outbox's record of an effect delivered, `src/engine/outbox.ts`). */
export const HELD_OPENINGS = ['idempotency.claimed', 'idempotency.answered', 'webhook.endpoint.created', DELIVERY_KIND] as const;

/** The SQL list of some kinds, as the adapters' partial indexes and the queries that read through them name them. */
export const kindsSql = (kinds: readonly string[]) => kinds.map((k) => `'${k}'`).join(', ');

/** An append to a purged grain (or to a stream held for one): refused, nothing written. */
export class GrainPurged extends Error {
  constructor(readonly grain: string) {
    super(`grain ${grain} has been purged: nothing is written to it again`);
  }
}

/** A purge asked of a grain the journal may never purge (the top level, or a grain it does not know). */
export class NotPurgeable extends Error {
  constructor(readonly grain: string) {
    super(`grain ${grain} is not a TTL-bound sandbox grain: the journal never purges it`);
  }
}
