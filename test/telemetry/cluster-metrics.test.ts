/**
 * `legalwork serve --processes 2` with metrics on (issue 45): the primary
 * alone listens on the metrics address, and a scrape answers every worker's
 * metrics added up (prom-client's cluster registry over Node's IPC), behind
 * the same token. Requests dealt round-robin to the two workers all count.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { removeDir, ROOT, spawnChild, tempDataDir, type Child } from '../../bench/lib/service.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from '../helpers/postgres.ts';
import { METRICS_TOKEN, samplesOf } from '../helpers/telemetry.ts';

const schema = freshSchema();
const dir = tempDataDir('legalwork-cluster-metrics-');
let primary: Child | undefined;
afterAll(async () => {
  await primary?.stop();
  removeDir(dir);
  await dropSchema(schema);
});

describe('metrics under serve --processes 2', () => {
  it('are served by the primary through one door, every worker\'s added up', async () => {
    primary = await spawnChild({
      args: [`${ROOT}/bin/legalwork.js`, 'serve', '--processes', '2'],
      env: { LEGALWORK_DATA: dir, LEGALWORK_DATABASE_URL: TEST_DATABASE_URL, LEGALWORK_DATABASE_SCHEMA: schema, LEGALWORK_METRICS_ADDRESS: '127.0.0.1:0', LEGALWORK_METRICS_TOKEN: METRICS_TOKEN },
    });
    const door = /metrics on (\S+)/.exec(primary.stderr())?.[1];
    expect(door, primary.stderr()).toBeDefined();
    const scrape = async (token = METRICS_TOKEN) => fetch(`http://${door}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect((await scrape('not-the-token-0123456789')).status).toBe(401);

    // A new connection each: the primary deals them to the two workers in turn.
    const sent = 20;
    for (let i = 0; i < sent; i++) expect((await fetch(`${primary.url}/healthz`, { headers: { connection: 'close' } })).status).toBe(200);
    const answer = await scrape();
    expect(answer.status).toBe(200);
    const samples = samplesOf(await answer.text());
    const healthz = samples.find((s) => s.name === 'legalwork_http_request_duration_seconds_count' && s.labels.route === '/healthz');
    // Either worker alone would have counted about half of them.
    expect(healthz?.value).toBe(sent);
    // Two processes' event loops sampled, and their process metrics summed.
    expect(samples.find((s) => s.name === 'legalwork_event_loop_delay_seconds_count')?.value).toBeGreaterThan(0);
    expect(samples.filter((s) => s.name === 'process_resident_memory_bytes')).toHaveLength(1);
  }, 60_000);
});
