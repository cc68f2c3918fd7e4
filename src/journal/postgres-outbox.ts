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
import { DELIVERY_KIND, INTENT_KINDS } from './store.ts';

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

/** The unsettled intents after a (grain, seq), whole, in (grain, seq) order: $1 grain, $2 seq, $3 limit. */
export const PENDING_SELECT = (columns: string) =>
  `SELECT ${columns.split(', ').map((c) => `e.${c}`).join(', ')} FROM outbox_pending p JOIN events e ON e.grain = p.grain AND e.seq = p.seq
   WHERE (p.grain, p.seq) > ($1, $2) ORDER BY p.grain, p.seq LIMIT $3`;
