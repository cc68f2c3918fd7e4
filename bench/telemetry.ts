/**
 * What telemetry costs (issue 45): the same doors on five service processes
 * that differ only in it, driven one after another at 50 connections:
 *
 * - both off (as every other benchmark runs);
 * - metrics on (`LEGALWORK_METRICS_ADDRESS`, scraped every second by this
 *   process, as a Prometheus would, only more often);
 * - tracing on, every request sampled (`OTEL_EXPORTER_OTLP_ENDPOINT` to a
 *   sink in this process that takes the OTLP/HTTP posts and drops them);
 * - both on;
 * - tracing on, one trace in ten sampled (`parentbased_traceidratio`,
 *   0.1): what a busy deployment would run.
 *
 * Doors: `POST /workspaces/{ws}/matters` (a durable open: the request span
 * and the journal's append span), then `POST …/advance` three times over
 * each Matter that run opened (the command, its decision, the append), then
 * `GET …/matters/{id}` (a read: the request span alone, the read statements
 * timed). Targets: metrics cost at most 5 % of throughput, tracing at most
 * 15 %, each against the both-off process of the same round.
 *
 * The machine is shared, so each door is measured in rounds
 * (BENCH_TELEMETRY_ROUNDS, default 3), the four services in a rotated order
 * each round; each row is the median round by req/s. BENCH_SECONDS is per run.
 *
 * Runs inside `npm run bench` (BENCH_ONLY=telemetry), or alone:
 * `node --import tsx bench/telemetry.ts`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { drive, type Figures } from './lib/load.ts';
import { ADVANCE_BODY, collectMatterIds, CREATE_BODY, openWorkspace } from './matters.ts';
import { removeDir, spawnService, tempDataDir, type Child } from './lib/service.ts';
import { ms, num, pct, table, us, verdict } from './lib/table.ts';

const TOKEN = 'bench-metrics-token-0123456789';
const METRICS_TARGET = 0.95;
const TRACING_TARGET = 0.85;

interface Target {
  name: string;
  child: Child;
  dir: string;
  ws: string;
  metrics?: string;
}

/** An OTLP/HTTP sink: every post read whole and answered, nothing kept. */
async function otlpSink(): Promise<{ url: string; posts: () => number; close: () => Promise<void> }> {
  let posts = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      posts++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts: () => posts,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}

async function target(name: string, env: Record<string, string>): Promise<Target> {
  const dir = tempDataDir();
  const child = await spawnService(dir, env);
  let metrics: string | undefined;
  for (let waited = 0; env.LEGALWORK_METRICS_ADDRESS && !metrics && waited < 10_000; waited += 20) {
    metrics = /metrics on (\S+)/.exec(child.stderr())?.[1];
    if (!metrics) await new Promise((next) => setTimeout(next, 20));
  }
  return { name, child, dir, ws: await openWorkspace(child.url), metrics };
}

/** One round of the three doors on one target: open Matters, advance each three times, read them. */
async function doors(t: Target, seconds: number): Promise<Figures[]> {
  const ids: string[] = [];
  const scraping = t.metrics ? setInterval(() => void fetch(`http://${t.metrics}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) => r.text(), () => ''), 1000) : undefined;
  try {
    const create = await drive({ title: `create, ${t.name}`, url: t.child.url, server: t.child, method: 'POST', path: () => `${t.ws}/matters`, body: () => CREATE_BODY, duration: seconds, onResponse: collectMatterIds(ids) });
    const advance = await drive({ title: `advance, ${t.name}`, url: t.child.url, server: t.child, method: 'POST', path: (i) => `${t.ws}/matters/${ids[i % ids.length]}/advance`, body: () => ADVANCE_BODY, duration: seconds, amount: ids.length * 3 });
    const read = await drive({ title: `GET, ${t.name}`, url: t.child.url, server: t.child, method: 'GET', path: (i) => `${t.ws}/matters/${ids[i % ids.length]}`, duration: seconds });
    return [create, advance, read];
  } finally {
    if (scraping) clearInterval(scraping);
  }
}

export async function measureTelemetry(seconds = Number(process.env.BENCH_SECONDS ?? 10)): Promise<{ rows: Figures[][]; posts: number }> {
  const sink = await otlpSink();
  const metrics = { LEGALWORK_METRICS_ADDRESS: '127.0.0.1:0', LEGALWORK_METRICS_TOKEN: TOKEN };
  const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER: 'always_on' };
  const sampled = { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };
  const targets = [await target('both off', {}), await target('metrics on', metrics), await target('tracing on (100 %)', tracing), await target('both on', { ...metrics, ...tracing }), await target('tracing on (10 %)', sampled)];
  try {
    // Warm every process (JIT, page cache) before anything is measured.
    for (const t of targets) await doors(t, 2);
    const rounds = Number(process.env.BENCH_TELEMETRY_ROUNDS ?? 3);
    // runs[target][round] = the three doors' figures.
    const runs = targets.map(() => [] as Figures[][]);
    for (let round = 0; round < rounds; round += 1) {
      for (let k = 0; k < targets.length; k += 1) {
        const at = (k + round) % targets.length;
        runs[at].push(await doors(targets[at], seconds));
      }
    }
    // For each target, each door's median round by req/s.
    const rows = runs.map((byRound) => [0, 1, 2].map((door) => [...byRound.map((r) => r[door])].sort((x, y) => x.rps - y.rps)[Math.floor(byRound.length / 2)]));
    return { rows, posts: sink.posts() };
  } finally {
    await Promise.all(targets.map((t) => t.child.stop()));
    for (const t of targets) removeDir(t.dir);
    await sink.close();
  }
}

export async function bench(): Promise<string[]> {
  const { rows, posts } = await measureTelemetry();
  const [off] = rows;
  const lines: string[] = [];
  const ratio = (row: Figures[], door: number) => row[door].rps / off[door].rps;
  const body: string[][] = [];
  for (const door of [0, 1, 2]) for (const row of rows) {
    const f = row[door];
    body.push([f.title, num(f.rps), ms(f.p50), ms(f.p99), pct(ratio(row, door)), us(f.cpuUs), us(f.loopUs), num(f.non2xx)]);
  }
  lines.push(`the same doors on services that differ only in telemetry, 50 connections; the median of ${process.env.BENCH_TELEMETRY_ROUNDS ?? 3} rounds by req/s; tracing samples every request and exports to a local OTLP sink (${num(posts)} posts received)`);
  lines.push(...table(['door, telemetry', 'req/s (2xx)', 'p50', 'p99', 'vs off', 'CPU/req', 'loop/req', 'non-2xx'], body));
  const worst = (row: Figures[]) => Math.min(...[0, 1, 2].map((d) => ratio(row, d)));
  lines.push(`metrics on: worst door ${pct(worst(rows[1]))} of off (target at least ${pct(METRICS_TARGET)}): ${verdict(worst(rows[1]) >= METRICS_TARGET)}`);
  lines.push(`tracing on (100 %): worst door ${pct(worst(rows[2]))} of off (target at least ${pct(TRACING_TARGET)}): ${verdict(worst(rows[2]) >= TRACING_TARGET)}`);
  lines.push(`both on: worst door ${pct(worst(rows[3]))} of off`);
  lines.push(`tracing on, 10 % of traces sampled (parentbased_traceidratio): worst door ${pct(worst(rows[4]))} of off`);
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log((await bench()).join('\n'));
