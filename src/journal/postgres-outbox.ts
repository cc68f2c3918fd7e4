/**
 * The outbox's unsettled intents on PostgreSQL (`pendingIntents` in
 * `store.ts`): kept apart in `outbox_pending`, so a start, and the sweep
 * every process makes for work a dead process held, read the unsettled
 * intents alone, never every intent the journal holds (a start once read
 * 133,000 of them over a million events, to post none).
 *
 * - The database keeps the table, in the transaction of the journal's own
 *   writes: an intent's row is inserted with the intent, and deleted with
 *   the outbox record that settles it (`DELIVERY_KIND`, whose
 *   `data.intent` names the intent's grain and seq). A row is there exactly
 *   while its intent is unsettled, whichever process wrote either, and an
 *   append refused in its subtransaction leaves no row behind.
 * - The migration fills the table from the journal as it stands: every
 *   intent no record settles. It makes the trigger first, in the same
 *   transaction: creating a trigger takes a lock that waits for the inserts
 *   under way and holds off new ones until COMMIT, so a process of an
 *   earlier build writing meanwhile never slips an intent between the fill
 *   and the trigger.
 * - This is bookkeeping beside the journal, not the journal: like the
 *   snapshots, its rows change; the events stay append-only.
 */
import { HOLDER_SETTING } from './postgres-leases.ts';
import { DELIVERY_KIND, INTENT_KINDS, INTENT_LEASE_PREFIX } from './store.ts';

const KINDS = INTENT_KINDS.map((k) => `'${k}'`).join(', ');

/**
 * Migration 6 of the PostgreSQL journal's schema (`MIGRATIONS` in
 * `postgres.ts`). Applied databases hold it as written: never edit it; a
 * change is a new migration.
 */
export const OUTBOX_MIGRATION = `
CREATE TABLE outbox_pending (grain text NOT NULL, seq bigint NOT NULL, PRIMARY KEY (grain, seq));
CREATE FUNCTION outbox_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.kind = '${DELIVERY_KIND}' THEN
    DELETE FROM outbox_pending WHERE grain = NEW.body::jsonb #>> '{data,intent,grain}' AND seq = (NEW.body::jsonb #>> '{data,intent,seq}')::bigint;
  ELSE
    INSERT INTO outbox_pending (grain, seq) VALUES (NEW.grain, NEW.seq) ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER events_outbox AFTER INSERT ON events FOR EACH ROW WHEN (NEW.kind IN (${KINDS}, '${DELIVERY_KIND}')) EXECUTE FUNCTION outbox_track();
INSERT INTO outbox_pending (grain, seq)
  SELECT e.grain, e.seq FROM events e
  WHERE e.kind IN (${KINDS})
    AND NOT EXISTS (SELECT 1 FROM events d WHERE d.kind = '${DELIVERY_KIND}'
                      AND d.body::jsonb #>> '{data,intent,grain}' = e.grain AND (d.body::jsonb #>> '{data,intent,seq}')::bigint = e.seq);
`;

/**
 * Migration 7: an intent is born leased (`intentLeaseOf`) to the process
 * whose append writes it, in that append: its connections carry their
 * process's holder (`HOLDER_SETTING`), and the lease row is inserted with
 * the intent, for 10 s (`LEASE_SECONDS` as written), which the process's
 * first attempt renews. So no sweep of another process can take an intent
 * between its commit and its committer's first attempt, and a sweep takes
 * at once any intent it reads: free (an earlier build's, or filled by
 * migration 6), expired (its holder died or stalled) or this process's.
 * Applied databases hold it as written: never edit it.
 */
export const OUTBOX_LEASE_MIGRATION = `
CREATE OR REPLACE FUNCTION outbox_track() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  holder text := nullif(current_setting('${HOLDER_SETTING}', true), '');
BEGIN
  IF NEW.kind = '${DELIVERY_KIND}' THEN
    DELETE FROM outbox_pending WHERE grain = NEW.body::jsonb #>> '{data,intent,grain}' AND seq = (NEW.body::jsonb #>> '{data,intent,seq}')::bigint;
  ELSE
    INSERT INTO outbox_pending (grain, seq) VALUES (NEW.grain, NEW.seq) ON CONFLICT DO NOTHING;
    IF holder IS NOT NULL THEN
      INSERT INTO leases (name, holder, expires_at) VALUES ('${INTENT_LEASE_PREFIX}' || NEW.grain || ':' || NEW.seq, holder, now() + interval '10 seconds')
        ON CONFLICT (name) DO NOTHING;
    END IF;
  END IF;
  RETURN NULL;
END $$;
`;

/**
 * The unsettled intents after a (grain, seq), whole, in (grain, seq) order,
 * but those a live lease (`intentLeaseOf`) holds: $1 grain, $2 seq, $3
 * limit. A sweep while the supply network is down reads none of the backlog
 * the process retrying it holds. This process's own live leases are left
 * out too: that work is under way here (its first attempt, its retries),
 * and a sweep that took an intent its committer is about to attempt from
 * inside the entity's mailbox would wait on that mailbox.
 */
export const PENDING_SELECT = (columns: string) =>
  `SELECT ${columns.split(', ').map((c) => `e.${c}`).join(', ')} FROM outbox_pending p JOIN events e ON e.grain = p.grain AND e.seq = p.seq
   LEFT JOIN leases l ON l.name = '${INTENT_LEASE_PREFIX}' || p.grain || ':' || p.seq
   WHERE (p.grain, p.seq) > ($1, $2) AND (l.name IS NULL OR l.expires_at <= now())
   ORDER BY p.grain, p.seq LIMIT $3`;
