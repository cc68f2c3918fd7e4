/**
 * `npm run bench:profile`: where each door's CPU goes. For each door (create,
 * advance, GET of a resident Matter and of one not resident, a page of
 * Matters, a page of the event tail) a
 * fresh service is spawned under `node --cpu-prof`, given the Matters the
 * door needs (created over HTTP), warmed up on the door itself, then driven
 * on that door alone for BENCH_SECONDS (default 8) at 50 connections, and
 * stopped with SIGTERM (the drain exits, and V8 writes the profile). Only the
 * samples from the measured run's start to its last answer are summarized: the top
 * 15 frames by self time (`bench/lib/profile.ts`). Printed as Markdown.
 * BENCH_DOORS (comma list of the door names below) profiles some doors only;
 * BENCH_KEEP=<dir> keeps each door's whole profile there.
 */
import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CREATE_BODY, ADVANCE_BODY, collectMatterIds, openWorkspace } from './matters.ts';
import { drive, type Figures, type Load } from './lib/load.ts';
import { topSelfFrames, type CpuProfile } from './lib/profile.ts';
import { removeDir, spawnService, tempDataDir, type Child } from './lib/service.ts';
import { ms, num, us } from './lib/table.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const TOP = Number(process.env.BENCH_TOP ?? 15);
/** BENCH_KEEP: a directory each door's whole profile is copied to (`<door>.cpuprofile`), for a closer look in DevTools. */
const KEEP = process.env.BENCH_KEEP;
/** As in bench/matters.ts: fewer Matters than the supervisor keeps resident. */
const POOL_MAX = 8_000;
/** Matters made for the cold read: twice the 10,000 the supervisor keeps resident with their ladders. */
const COLD_MATTERS = 24_000;

interface Door {
  name: string;
  /** Creates what the door reads or writes; answers the measured load's path and body (and `amount`, for advance). */
  setup: (service: Child, prefix: string) => Promise<Pick<Load, 'method' | 'path' | 'body' | 'amount' | 'headers'> & { title: string; warm?: Pick<Load, 'path' | 'amount' | 'headers'> }>;
}

/** A fresh Idempotency-Key per request of a run. */
const keyed = (run: string) => (i: number) => ({ 'idempotency-key': `profile-${run}-${i}` });

const createLoad = (service: Child, prefix: string, title: string, duration: number, onResponse?: Load['onResponse']) =>
  drive({ title, url: service.url, server: service, method: 'POST', path: () => `${prefix}/matters`, body: () => CREATE_BODY, duration, onResponse });

/** Creates Matters for 3 s (which also warms the create path); answers the most recent POOL_MAX ids. */
async function matterPool(service: Child, prefix: string): Promise<string[]> {
  const pool: string[] = [];
  await createLoad(service, prefix, 'setup: create', 3, collectMatterIds(pool));
  return pool.slice(-POOL_MAX);
}

const doors: Door[] = [
  {
    name: 'create',
    setup: async (_service, prefix) => ({ title: 'POST /workspaces/{ws}/matters', method: 'POST', path: () => `${prefix}/matters`, body: () => CREATE_BODY }),
  },
  {
    name: 'advance',
    setup: async (service, prefix) => {
      const pool = await matterPool(service, prefix);
      const n = pool.length;
      const path = (i: number) => `${prefix}/matters/${pool[i % n]}/advance`;
      // The warm-up takes each Matter intake -> prepare; the measured run the other three advances (two stage commits, one escalation).
      return { title: 'POST /workspaces/{ws}/matters/{id}/advance', method: 'POST', path, body: () => ADVANCE_BODY, amount: 3 * n, warm: { path, amount: n } };
    },
  },
  {
    // Issue 48: a create under a fresh Idempotency-Key per request (the key's record, with the answer, in the create's transaction).
    name: 'create keyed',
    setup: async (_service, prefix) => ({ title: 'POST /workspaces/{ws}/matters under Idempotency-Key', method: 'POST', path: () => `${prefix}/matters`, body: () => CREATE_BODY, headers: keyed('create'), warm: { path: () => `${prefix}/matters`, headers: keyed('warm') } }),
  },
  {
    name: 'advance keyed',
    setup: async (service, prefix) => {
      const pool = await matterPool(service, prefix);
      const n = pool.length;
      const path = (i: number) => `${prefix}/matters/${pool[i % n]}/advance`;
      // As the advance door: the warm-up takes each Matter intake -> prepare, the measured run the other three, each under a fresh key.
      return { title: 'POST /workspaces/{ws}/matters/{id}/advance under Idempotency-Key', method: 'POST', path, body: () => ADVANCE_BODY, headers: keyed('advance'), amount: 3 * n, warm: { path, amount: n, headers: keyed('warm') } };
    },
  },
  {
    name: 'GET Matter',
    setup: async (service, prefix) => {
      const pool = await matterPool(service, prefix);
      return { title: 'GET /workspaces/{ws}/matters/{id}', method: 'GET', path: (i) => `${prefix}/matters/${pool[(i * 7919) % pool.length]}` };
    },
  },
  {
    // Issue 25's cold read: more Matters than the supervisor keeps (a Matter and its ladder are two of its 20,000), the oldest read once each.
    name: 'GET Matter cold',
    setup: async (service, prefix) => {
      const ids: string[] = [];
      await drive({ title: 'setup: create', url: service.url, server: service, method: 'POST', path: () => `${prefix}/matters`, body: () => CREATE_BODY, amount: COLD_MATTERS, duration: 300, onResponse: collectMatterIds(ids) });
      // The oldest half was passivated long ago; its first quarter warms the door up, the rest is measured, each once.
      const cold = ids.slice(0, COLD_MATTERS / 2);
      const warm = cold.splice(0, cold.length / 4);
      return { title: 'GET /workspaces/{ws}/matters/{id}, not resident, each once', method: 'GET', path: (i) => `${prefix}/matters/${cold[i % cold.length]}`, amount: cold.length, warm: { path: (i) => `${prefix}/matters/${warm[i % warm.length]}`, amount: warm.length } };
    },
  },
  {
    name: 'GET matters page',
    setup: async (service, prefix) => {
      await matterPool(service, prefix);
      return { title: 'GET /workspaces/{ws}/matters?limit=100', method: 'GET', path: () => `${prefix}/matters?limit=100` };
    },
  },
  {
    name: 'GET events page',
    setup: async (service, prefix) => {
      await matterPool(service, prefix);
      const latest = ((await (await fetch(`${service.url}${prefix}/events?limit=1`)).json()) as { latestSeq: number }).latestSeq;
      return { title: 'GET /workspaces/{ws}/events?after=<cursor>&limit=100', method: 'GET', path: (i) => `${prefix}/events?after=${(i * 7919) % Math.max(1, latest - 100)}&limit=100` };
    },
  },
];

async function profileDoor(door: Door): Promise<string[]> {
  const dir = tempDataDir();
  const profDir = tempDataDir('legalwork-prof-');
  const service = await spawnService(dir, {}, ['--cpu-prof', '--cpu-prof-dir', profDir]);
  let figures: Figures;
  let window: { fromUs: number; toUs: number };
  try {
    const prefix = await openWorkspace(service.url);
    const load = await door.setup(service, prefix);
    const path = load.path;
    const base = { url: service.url, server: service, method: load.method, body: load.body };
    await drive({ ...base, title: 'warm-up', path: load.warm?.path ?? path, amount: load.warm?.amount, headers: load.warm?.headers, duration: 2 });
    const fromUs = Number(process.hrtime.bigint() / 1000n);
    // The window ends at the last answer: a run that `amount` ends idles until autocannon's next tick.
    let lastAnswer = fromUs;
    const onResponse = () => void (lastAnswer = Number(process.hrtime.bigint() / 1000n));
    figures = await drive({ ...base, title: load.title, path, amount: load.amount, headers: load.headers, duration: SECONDS, onResponse });
    window = { fromUs, toUs: lastAnswer };
  } finally {
    await service.stop();
    removeDir(dir);
  }
  const files = readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length !== 1) throw new Error(`expected one .cpuprofile in ${profDir}, found ${files.length}`);
  const profile = JSON.parse(readFileSync(join(profDir, files[0]), 'utf8')) as CpuProfile;
  if (KEEP) copyFileSync(join(profDir, files[0]), join(KEEP, `${door.name.replace(/\W+/g, '-')}.cpuprofile`));
  removeDir(profDir);
  let summary = topSelfFrames(profile, TOP, window);
  let note = 'samples taken during the measured run only';
  if (summary.samples === 0) {
    summary = topSelfFrames(profile, TOP);
    note = 'WARNING: no sample fell inside the measured run (clocks disagree?): the whole process lifetime is summarized';
  }
  const f = figures;
  return [
    `### ${door.name}: \`${f.title}\``,
    '',
    `${num(f.rps)} req/s (2xx) at 50 connections, p50 ${ms(f.p50)}, p99 ${ms(f.p99)}, CPU/req ${us(f.cpuUs)}, loop/req ${us(f.loopUs)}, ${num(f.ok)} 2xx, ${num(f.non2xx)} non-2xx, ${f.seconds.toFixed(1)} s; ` +
      `profile: ${num(summary.samples)} samples over ${(summary.ms / 1000).toFixed(1)} s (mean interval ${summary.intervalUs.toFixed(0)} µs), ${note}`,
    '',
    '| # | self % | self ms | function | where |',
    '|---:|---:|---:|---|---|',
    ...summary.rows.map((r, i) => `| ${i + 1} | ${(r.share * 100).toFixed(1)} % | ${num(r.ms)} | \`${r.frame}\` | ${r.location ? `\`${r.location}\`` : ''} |`),
    '',
  ];
}

console.log(`legalwork profiles — node ${process.version}, ${new Date().toISOString()}, ${SECONDS} s per door, 50 connections, top ${TOP} frames by self time\n`);
const only = process.env.BENCH_DOORS?.split(',').map((s) => s.trim());
for (const door of doors) {
  if (only && !only.includes(door.name)) continue;
  for (const line of await profileDoor(door)) console.log(line);
}
