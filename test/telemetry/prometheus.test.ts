/**
 * The service scraped by a real Prometheus (issue 45): Debian's `prometheus`
 * (installed when missing, as the browser tests' chromium is) runs on a free
 * port with a temporary configuration and storage, scrapes a service on each
 * journal every second through the metrics door's token while traffic runs,
 * and is asked through its own HTTP API for each service's request rate and
 * a quantile of its event loop's delay. Stopped and removed at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePrometheus, freePort } from '../../scripts/test-services.ts';
import { send } from '../helpers/processes.ts';
import { JOURNALS, METRICS_TOKEN, startService, type JournalKind, type TelemetryService } from '../helpers/telemetry.ts';

const services = new Map<JournalKind, TelemetryService>();
let prometheus: ChildProcess | undefined;
let prometheusLog = '';
let api = '';
let dir = '';
let traffic: Promise<void> | undefined;
let running = true;

/** Steady traffic on one service: a workspace's Matter opened and advanced, reads, a refusal, again and again. */
async function drive(base: string): Promise<void> {
  while (running) {
    const ws = (await send(base, 'POST', '/workspaces')).body.workspace.id as string;
    const matter = (await send(base, 'POST', `/workspaces/${ws}/matters`, { matterType: 'patent_provisional' })).body.matter.id as string;
    for (let i = 0; i < 3 && running; i++) {
      await send(base, 'POST', `/workspaces/${ws}/matters/${matter}/advance`, {});
      await send(base, 'GET', `/workspaces/${ws}/matters/${matter}`);
    }
    await send(base, 'GET', `/workspaces/${ws}/matters/mt_unknown`);
  }
}

/** An instant query's first value through Prometheus's HTTP API, once it has one (null until then). */
async function query(promql: string): Promise<number | null> {
  const answer = (await (await fetch(`${api}/api/v1/query?query=${encodeURIComponent(promql)}`)).json()) as { status: string; data: { result: Array<{ value: [number, string] }> } };
  expect(answer.status).toBe('success');
  const value = answer.data.result[0]?.value[1];
  return value === undefined || value === 'NaN' ? null : Number(value);
}

beforeAll(async () => {
  ensurePrometheus();
  for (const journal of JOURNALS) services.set(journal, await startService(journal, { LEGALWORK_METRICS_ADDRESS: '127.0.0.1:0', LEGALWORK_METRICS_TOKEN: METRICS_TOKEN }));
  dir = mkdtempSync(join(tmpdir(), 'legalwork-prometheus-'));
  const jobs = JOURNALS.map((journal) => `  - job_name: ${journal}\n    authorization:\n      credentials: ${METRICS_TOKEN}\n    static_configs:\n      - targets: ['${services.get(journal)!.metricsTarget}']\n`).join('');
  writeFileSync(join(dir, 'prometheus.yml'), `global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n${jobs}`);
  const port = await freePort();
  api = `http://127.0.0.1:${port}`;
  prometheus = spawn('/usr/bin/prometheus', [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  prometheus.stderr!.setEncoding('utf8').on('data', (chunk: string) => (prometheusLog = (prometheusLog + chunk).slice(-4000)));
  for (const deadline = Date.now() + 30_000; (await fetch(`${api}/-/ready`).then((r) => r.status, () => 0)) !== 200; ) {
    if (Date.now() > deadline || prometheus.exitCode !== null) throw new Error(`Prometheus did not get ready:\n${prometheusLog}`);
    await new Promise((next) => setTimeout(next, 200));
  }
  traffic = Promise.all([...services.values()].map((s) => drive(s.url))).then(() => undefined);
}, 180_000);

afterAll(async () => {
  running = false;
  await traffic?.catch(() => undefined);
  if (prometheus && prometheus.exitCode === null) {
    const exited = new Promise((done) => prometheus!.once('exit', done));
    prometheus.kill('SIGTERM');
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  await Promise.all([...services.values()].map((s) => s.close()));
}, 60_000);

describe.each(JOURNALS)('Prometheus scraping the service on the %s journal', (journal) => {
  it('finds the target up, and answers its request rate and its event loop\'s 99th percentile delay', async () => {
    const poll = { timeout: 45_000, interval: 500 };
    await expect.poll(() => query(`up{job="${journal}"}`), poll).toBe(1);
    // A rate needs two scrapes with traffic between them.
    await expect.poll(() => query(`sum(rate(legalwork_http_request_duration_seconds_count{job="${journal}"}[5s]))`), poll).toBeGreaterThan(0);
    const advances = await query(`sum(rate(legalwork_http_request_duration_seconds_count{job="${journal}",route="/workspaces/:workspaceId/matters/:id/advance",status_class="2xx"}[5s]))`);
    expect(advances).toBeGreaterThan(0);
    await expect.poll(() => query(`histogram_quantile(0.99, sum by (le) (rate(legalwork_event_loop_delay_seconds_bucket{job="${journal}"}[5s])))`), poll).not.toBeNull();
    const p99 = (await query(`histogram_quantile(0.99, sum by (le) (rate(legalwork_event_loop_delay_seconds_bucket{job="${journal}"}[5s])))`))!;
    expect(p99).toBeGreaterThanOrEqual(0);
    expect(p99).toBeLessThan(5);
    // The journal's adapter as the service names it, read through Prometheus too.
    await expect.poll(() => query(`sum(rate(legalwork_journal_append_seconds_count{job="${journal}",adapter="${journal === 'postgres' ? 'postgresql' : 'sqlite'}"}[5s]))`), poll).toBeGreaterThan(0);
  }, 60_000);
});
