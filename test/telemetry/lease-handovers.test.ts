/**
 * `legalwork_lease_handovers_total` (issue 45): a lease taken from another
 * holder that stopped renewing it counts once, by the kind of work it holds;
 * a lease claimed free, renewed by its holder, or taken after its holder
 * released it does not. Read through the telemetry port with a sink that
 * records what it is told.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresJournal } from '../../src/journal/postgres.ts';
import { PostgresLeases } from '../../src/journal/postgres-leases.ts';
import { installMetrics, type MetricsSink } from '../../src/lib/telemetry.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from '../helpers/postgres.ts';

const handovers: Array<Record<string, string> | undefined> = [];
const recording: MetricsSink = {
  counter: (spec) => (labels, value) => {
    if (spec.name === 'legalwork_lease_handovers_total') for (let i = 0; i < value; i++) handovers.push(labels);
  },
  histogram: () => () => undefined,
  gauge: () => undefined,
};

const schema = freshSchema();
let pool: pg.Pool;
const holders: PostgresLeases[] = [];
beforeAll(async () => {
  installMetrics(recording);
  await (await PostgresJournal.connect({ url: TEST_DATABASE_URL, schema })).close();
  pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}`, max: 4 });
});
afterAll(async () => {
  await Promise.all(holders.map((h) => h.close()));
  await pool.end();
  await dropSchema(schema);
});

/** A holder that renews only when told (a process that died, once its lease runs out). */
const holder = (name: string, leaseSeconds: number) => {
  const leases = new PostgresLeases(pool, { holder: name, leaseSeconds, renewMs: 3_600_000 });
  holders.push(leases);
  return leases;
};

describe('lease handovers', () => {
  it('count a lease taken from a holder that stopped renewing it, by the kind of work, and nothing else', async () => {
    const [dead, live] = [holder('dead', 1), holder('live', 60)];
    const names = ['outbox:ws_a:7', 'webhook:wh_b'];
    expect(await dead.claim([...names, 'outbox:ws_a:8'])).toEqual(new Set([...names, 'outbox:ws_a:8']));
    // Claimed free, then renewed by their holder: no handover.
    expect(await dead.claim(names)).toEqual(new Set(names));
    await dead.release(['outbox:ws_a:8']);
    expect(handovers).toEqual([]);
    // Still held: the other takes none.
    expect(await live.claim(names)).toEqual(new Set());
    await new Promise((expired) => setTimeout(expired, 1_200));
    // Expired: the live holder takes both over; the released one is simply free.
    expect(await live.claim([...names, 'outbox:ws_a:8'])).toEqual(new Set([...names, 'outbox:ws_a:8']));
    expect(handovers.map((labels) => labels?.lease).sort()).toEqual(['outbox_intent', 'webhook_endpoint']);
    // Renewed by its new holder: no more.
    await live.claim(names);
    expect(handovers).toHaveLength(2);
  });
});
