/**
 * Metrics at the operator's door (issue 45), on a real service on each
 * journal: closed without its token, on an address of its own (the API
 * serves no /metrics); every metric the operations guide names is exported;
 * after traffic from many grains no label carries an id, key, email or name,
 * and more grains add no series (cardinality is bounded by the code); the
 * Grafana dashboard in the repository queries only metrics the service
 * exports; OpenMetrics when asked.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../bench/lib/service.ts';
import { send } from '../helpers/processes.ts';
import { HANG_MS } from '../helpers/wait.ts';
import { familiesOf, JOURNALS, METRICS_TOKEN, samplesOf, startService, type TelemetryService } from '../helpers/telemetry.ts';

const BEARER = { authorization: `Bearer ${METRICS_TOKEN}` };

/** The metrics the operations guide documents, each of which the service must export. */
export const DOCUMENTED = [
  'legalwork_http_request_duration_seconds',
  'legalwork_refusals_total',
  'legalwork_rate_limit_rejections_total',
  'legalwork_journal_append_seconds',
  'legalwork_journal_commit_seconds',
  'legalwork_journal_commit_appends',
  'legalwork_journal_commit_events',
  'legalwork_journal_read_seconds',
  'legalwork_journal_answer_rows_total',
  'legalwork_snapshot_reads_total',
  'legalwork_actors_resident',
  'legalwork_actor_loads_total',
  'legalwork_actor_evictions_total',
  'legalwork_mailbox_wait_seconds',
  'legalwork_outbox_pending',
  'legalwork_outbox_oldest_pending_seconds',
  'legalwork_outbox_attempt_seconds',
  'legalwork_webhook_delivery_seconds',
  'legalwork_supply_callbacks_total',
  'legalwork_lease_handovers_total',
  'legalwork_sse_subscribers',
  'legalwork_event_loop_delay_seconds',
  'nodejs_gc_duration_seconds',
  'nodejs_heap_size_used_bytes',
  'process_resident_memory_bytes',
];

/** What an id, a key, an email or a Client's name looks like in a label value. */
const IDENTITY = /\b(?:mt|as|gig|ws|tn|fm|doc|wh|key|kid|lw|sg|rq|cl)_[A-Za-z0-9]{6,}|@|Ada|Inventor|fixture/;

/** Traffic of one sandbox grain and one top-level key: opening, advancing, reading, refusals. */
async function traffic(base: string, n: number): Promise<void> {
  const ws = (await send(base, 'POST', '/workspaces')).body.workspace.id as string;
  const W = `/workspaces/${ws}`;
  const matter = (await send(base, 'POST', `${W}/matters`, { matterType: 'patent_provisional', client: { name: 'Fulfilling Client (fixture)' }, asset: { kind: 'patent_application', title: `Map ${n}` } })).body.matter.id as string;
  for (let i = 0; i < 5; i++) expect((await send(base, 'POST', `${W}/matters/${matter}/advance`, {})).status).toBe(200);
  expect((await send(base, 'POST', `${W}/matters/${matter}/advance`, {})).status).toBeGreaterThanOrEqual(400);
  expect((await send(base, 'GET', `${W}/matters/${matter}`)).status).toBe(200);
  expect((await send(base, 'GET', `${W}/matters`)).status).toBe(200);
  expect((await send(base, 'GET', `${W}/events?after=0`)).status).toBe(200);
  expect((await send(base, 'GET', `${W}/matters/mt_${'x'.repeat(24)}`)).status).toBe(404);
  const key = (await send(base, 'POST', '/keys', { email: `ada.inventor+${n}@example.com` })).body.key as string;
  const auth = { authorization: `Bearer ${key}` };
  const top = await send(base, 'POST', '/matters', { matterType: 'patent_provisional', client: { name: 'Ada Inventor' }, asset: { title: 'Self-folding map' } }, auth);
  expect(top.status).toBe(201);
  expect((await send(base, 'POST', `/matters/${top.body.matter.id}/advance`, {}, auth)).status).toBe(200);
  expect((await send(base, 'GET', `/nothing/here/${n}`)).status).toBe(404);
}

const seriesOf = (text: string) => new Set(samplesOf(text).filter((s) => s.name.startsWith('legalwork_')).map((s) => `${s.name}{${Object.entries(s.labels).sort().map(([k, v]) => `${k}=${v}`).join(',')}}`));

describe.each(JOURNALS)('metrics on the %s journal', (journal) => {
  let service: TelemetryService;
  const scrape = async (headers: Record<string, string> = BEARER) => fetch(`${service.metricsUrl}/metrics`, { headers });

  beforeAll(async () => {
    service = await startService(journal, { LEGALWORK_METRICS_ADDRESS: '127.0.0.1:0', LEGALWORK_METRICS_TOKEN: METRICS_TOKEN });
  }, 60_000);
  afterAll(async () => service?.close());

  it('answers nobody without the token, and serves nothing but GET /metrics', async () => {
    for (const headers of <Array<Record<string, string>>>[{}, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: METRICS_TOKEN }, { authorization: `Basic ${Buffer.from(`x:${METRICS_TOKEN}`).toString('base64')}` }]) {
      const refused = await scrape(headers);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const body = await refused.json();
      expect(body).toMatchObject({ code: 'METRICS_TOKEN_INVALID' });
      expect(body.fix).toContain('LEGALWORK_METRICS_TOKEN');
      expect(JSON.stringify(body)).not.toMatch(/legalwork_|nodejs_/);
    }
    for (const [method, path] of [['GET', '/'], ['GET', '/metrics/x'], ['POST', '/metrics'], ['GET', '/openapi.json']]) {
      const other = await fetch(`${service.metricsUrl}${path}`, { method, headers: BEARER });
      expect(other.status, `${method} ${path}`).toBe(404);
      expect((await other.json()).code).toBe('METRICS_ROUTE_NOT_FOUND');
    }
    // Not a door of the API: the contract's surface is unchanged, and its port answers /metrics as any unknown path.
    expect((await send(service.url, 'GET', '/metrics')).body.code).toBe('ROUTE_NOT_FOUND');
    const contract = (await send(service.url, 'GET', '/openapi.json')).body as { paths: Record<string, unknown> };
    expect(Object.keys(contract.paths).filter((p) => p.includes('metrics'))).toEqual([]);
  });

  it('exports what the guide documents, and no label carries an id, key, email or name however many grains', async () => {
    for (let n = 0; n < 3; n++) await traffic(service.url, n);
    const first = await (await scrape()).text();
    const families = familiesOf(first);
    expect(DOCUMENTED.filter((name) => !families.has(name))).toEqual([]);
    const samples = samplesOf(first);
    const adapter = journal === 'postgres' ? 'postgresql' : 'sqlite';
    expect(samples.find((s) => s.name === 'legalwork_journal_append_seconds_count')?.labels.adapter).toBe(adapter);
    expect(samples.find((s) => s.name === 'legalwork_http_request_duration_seconds_count' && s.labels.route === '/workspaces/:workspaceId/matters/:id/advance' && s.labels.status_class === '2xx')?.value).toBeGreaterThanOrEqual(15);
    expect(samples.filter((s) => s.name === 'legalwork_refusals_total').map((s) => s.labels.code)).toContain('MATTER_NOT_FOUND');
    expect(samples.find((s) => s.name === 'legalwork_outbox_attempt_seconds_count' && s.labels.effect === 'gig.posted')?.value).toBeGreaterThan(0);

    // Six more grains, other keys, other emails, other ids: the same series, not one more.
    for (let n = 3; n < 9; n++) await traffic(service.url, n);
    const second = await (await scrape()).text();
    expect([...seriesOf(second)].filter((s) => !seriesOf(first).has(s))).toEqual([]);
    const leaks = samplesOf(second).flatMap((s) => Object.values(s.labels).filter((v) => IDENTITY.test(v)).map((v) => `${s.name}: ${v}`));
    expect(leaks).toEqual([]);
  }, 120_000);

  it('counts the event streams open, and forgets one that closes', async () => {
    const open = async () => samplesOf(await (await scrape()).text()).find((s) => s.name === 'legalwork_sse_subscribers')?.value;
    const ws = (await send(service.url, 'POST', '/workspaces')).body.workspace.id as string;
    const abort = new AbortController();
    const stream = await fetch(`${service.url}/workspaces/${ws}/events/stream`, { headers: { accept: 'text/event-stream' }, signal: abort.signal });
    expect(stream.status).toBe(200);
    await expect.poll(open, { timeout: HANG_MS }).toBe(1);
    abort.abort();
    await expect.poll(open, { timeout: HANG_MS }).toBe(0);
  });

  it('writes OpenMetrics when asked', async () => {
    const answer = await scrape({ ...BEARER, accept: 'application/openmetrics-text; version=1.0.0' });
    expect(answer.headers.get('content-type')).toMatch(/^application\/openmetrics-text/);
    const text = await answer.text();
    expect(text.trimEnd().endsWith('# EOF')).toBe(true);
    expect(text).toMatch(/^# TYPE legalwork_refusals counter$/m);
    expect(text).toMatch(/^legalwork_refusals_total\{code="ROUTE_NOT_FOUND"\} \d+/m);
    expect((await scrape()).headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('the Grafana dashboard in the repository queries only metrics the service exports', async () => {
    // A family, or one of a histogram's series: what a query can name whether or not it has been observed yet.
    const families = familiesOf(await (await scrape()).text());
    const exported = new Set([...families].flatMap(([name, type]) => (type === 'histogram' ? [name, `${name}_bucket`, `${name}_sum`, `${name}_count`] : [name])));
    const dashboard = JSON.parse(readFileSync(join(ROOT, 'docs/grafana/legalwork.json'), 'utf8'));
    const exprs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') for (const [key, value] of Object.entries(node)) (key === 'expr' && typeof value === 'string' ? exprs.push(value) : walk(value));
    };
    walk(dashboard);
    expect(exprs.length).toBeGreaterThan(8);
    const named = new Set(exprs.flatMap((expr) => [...expr.matchAll(/\b((?:legalwork|nodejs|process)_[a-z_]+)\b/g)].map((m) => m[1])));
    expect([...named].filter((name) => !exported.has(name))).toEqual([]);
    // Every panel names one of ours, so a dashboard of other metrics passes nothing.
    expect(exprs.every((expr) => /\b(?:legalwork|nodejs|process)_/.test(expr))).toBe(true);
  });
});
