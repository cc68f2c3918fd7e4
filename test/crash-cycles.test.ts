/**
 * Crash cycles (issue 17): the real service, killed under a mixed concurrent
 * load, over and over, on ONE data directory. Each cycle spawns the service
 * (`node bin/legalwork.js serve`) on the directory the last one left, times
 * its first answer, checks everything it serves against everything it ever
 * acknowledged, then drives the mixed load (bench/lib/mixed-load.ts: creates,
 * advances, gig-results signed and unsigned, documents, ticks, acks, Tenant and
 * firm writes, keyed top-level writes) at it for a random 0.2-1.5 s and kills
 * it with SIGKILL mid-flight; every tenth cycle sends SIGTERM instead and
 * requires a clean exit 0. After the last cycle one more start is checked,
 * in full, and stopped.
 *
 * After every restart:
 * - every write acknowledged (2xx) in any cycle so far is there as answered:
 *   its fact, of the kind and subject the answer implied, at the seq it
 *   named (or, for a Matter write that named a version, a Gig or a document,
 *   found in the Matter's journal and pinned to its seq then), read both from
 *   the served tails and, directly, from the journal's database;
 * - no stream of the journal has a gap or a duplicate version, and no grain a
 *   gap or a duplicate seq (the database, every stream and grain);
 * - every journal read before a kill is a prefix of the one read after: each
 *   grain's tail (incrementally from the last verified cursor, with an
 *   overlap; in full every tenth cycle and at the end) and the journals of
 *   the Matters the last cycle wrote to (every Matter's at the end); a Matter
 *   journal's version is its length and each of its entries is the tail's
 *   entry at that seq;
 * - each grain's tail pages (`GET …/events?after=`) from 0 to its end, seqs
 *   strictly increasing from 1 with no gap and no repeat;
 * - writes answered under an `Idempotency-Key` (or a signed callback's
 *   `webhook-id`) in the last cycle, sent again, are answered as the first
 *   time, byte for byte, `Idempotent-Replayed: true` (a sample of 40);
 * - the first answers (`GET /healthz` and a GET of the oldest Matter, asked
 *   as soon as the process listens) come: each restart's time to them is
 *   printed (worst and median), not bounded, and one that has not answered
 *   within START_HANG_MS (60 s) is a failure;
 * - the service answered no 5xx.
 *
 * After the last cycle, that the restart does not grow with the journal
 * (docs/reliability.md, "Time in the suite"): restarts over the final journal
 * (each after a SIGKILL, as in the cycles) and over a tiny journal, three of
 * each, taken in turn; over the final journal the least CPU up to the first
 * answers within 1.5 CPU-seconds of the tiny one's, and the best time to them
 * within twice the tiny one's and a second (test/helpers/startup.ts). A busy
 * machine slows both alike; a start-up that scans or replays the journal
 * costs it CPU-seconds, or seconds of waiting. The target, a restart within 1 s of spawn, is the `restart`
 * row of `npm run bench` (after a clean stop, and after a SIGKILL).
 *
 * `CRASH_CYCLES` (default 100) and `CRASH_SEED` (the seeded PRNG behind the
 * load's mix and the durations; printed) set the run. It is one of
 * `npm run test:load`'s files, run one at a time (vitest.config.ts).
 */
import { Database } from '../src/journal/sqlite-driver.ts';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { locate, MixedLoad, seededRng, seedFrom, topLevelOperator, type Ack, type Grain } from '../bench/lib/mixed-load.ts';
import { removeDir, spawnService, tempDataDir, type Child } from '../bench/lib/service.ts';
import { startsCompared, startsLine } from './helpers/startup.ts';
import { HANG_MS, START_HANG_MS, until } from './helpers/wait.ts';

const CYCLES = Number(process.env.CRASH_CYCLES ?? 100);
const SEED = seedFrom(process.env.CRASH_SEED);
/** Restarts over the final journal and over a tiny one, taken in turn, after the last cycle. */
const SHAPE_ROUNDS = 3;
/** The test's timeout a cycle, a hang guard: a cycle takes about 2.5 s quiet, and 7 s with two busy loops beside the run (695 s for 100). */
const CYCLE_BUDGET_MS = 15_000;
/** Writes each cycle sees acknowledged before its kill: the load was running. */
const MIN_ACKED = 10;
/** Tail entries re-read below the last verified cursor on an incremental pass. */
const OVERLAP = 20;
const PAGE = 500;
const REPLAYS_PER_CYCLE = 40;
/** Matters the last run did not write to whose journals are read again every tenth cycle (all of them at the end). */
const SAMPLED_MATTERS = 300;
/** Concurrent reads while checking. */
const READERS = 8;

type Json = any;

const digest = (x: unknown) => createHash('sha1').update(JSON.stringify(x)).digest('base64').slice(0, 16);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function get(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${base}${path}`, { headers });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Runs `body` over `xs` with at most `n` at a time. */
async function each<T>(xs: readonly T[], n: number, body: (x: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(Array.from({ length: Math.min(n, xs.length) }, async () => {
    while (i < xs.length) await body(xs[i++]);
  }));
}

interface Tail {
  grain: Grain;
  /** Index seq-1: what the tail served at that seq. */
  digests: string[];
  kinds: string[];
  subjects: string[];
}

interface Problems {
  /** An acknowledged write missing or changed, or a journal read before that is no longer a prefix. */
  lost: string[];
  /** A gap, a duplicate, disorder, a Matter inconsistent with its journal or the tail. */
  broken: string[];
  /** An idempotent write or a signed callback sent again and not answered as the first time. */
  replays: string[];
}

/**
 * Everything the service acknowledged and everything read from it, and the
 * checks of one restart against them.
 */
class Checker {
  readonly tails = new Map<string, Tail>();
  /** Digests of each Matter's journal entries, as last read. */
  readonly journals = new Map<string, string[]>();
  /** Acks pinned to (grain, seq) or (stream, version), checked at every restart; and Matter acks waiting to be found. */
  readonly pinned: Ack[] = [];
  unpinned: Ack[] = [];
  private taken = 0;
  writesChecked = 0;
  /** Acknowledged writes found missing or changed (by their order of acknowledgment). */
  readonly lostAcks = new Set<number>();

  constructor(private readonly load: MixedLoad, private readonly dbFile: string) {}

  /** Moves the acks of the last run into the checker (pinned or not), keeping the replays of that run aside. */
  private intake(): Ack[] {
    const fresh = this.load.acks.slice(this.taken);
    this.taken = this.load.acks.length;
    for (const a of fresh) (a.seq !== undefined || a.stream ? this.pinned : this.unpinned).push(a);
    return fresh;
  }

  /**
   * One restart's checks. `tenth`: the tails paged from 0, and beside the
   * Matters the last run wrote to, a sample of the others; `final`: the tails
   * from 0 and every Matter's journal.
   */
  async check(base: string, mode: 'incremental' | 'tenth' | 'final', rng: () => number): Promise<Problems & { reads: number }> {
    const full = mode !== 'incremental';
    const p: Problems = { lost: [], broken: [], replays: [] };
    const fresh = this.intake();
    let reads = 0;

    // 1. The served tails: from the last verified cursor (with an overlap), or from 0.
    await each(this.load.grains, READERS, async (grain) => {
      reads += await this.readTail(base, grain, full, p);
    });

    // 2. Matter journals: the ones the last run wrote to, the ones with acks still to find, or every one.
    const all = [...this.load.matters.keys()];
    const sampled = mode === 'tenth' ? Array.from({ length: Math.min(SAMPLED_MATTERS, all.length) }, () => all[Math.floor(rng() * all.length)]) : [];
    const ids = mode === 'final' ? all : [...new Set([...this.load.touched, ...this.unpinned.map((a) => a.matter!.id), ...sampled])];
    const waiting = new Map<string, Ack[]>();
    for (const a of this.unpinned) waiting.set(a.matter!.id, [...(waiting.get(a.matter!.id) ?? []), a]);
    const stillUnpinned: Ack[] = [];
    await each(ids, READERS, async (id) => {
      reads++;
      const m = this.load.matters.get(id)!;
      const res = await get(base, `${m.grain.prefix}/matters/${id}`);
      if (res.status !== 200) {
        p.lost.push(`Matter ${id} (${m.grain.prefix || m.grain.id}) answers ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
        stillUnpinned.push(...(waiting.get(id) ?? []));
        return;
      }
      const { matter, journal, asset } = res.body;
      this.checkMatterJournal(m.grain.id, id, matter, journal, asset, p);
      this.load.observeMatter(id, matter);
      for (const a of waiting.get(id) ?? []) {
        const at = locate(a, journal);
        if (!at) {
          this.lostAcks.add(a.n);
          p.lost.push(`ack #${a.n} (${a.op} on ${id}, cycle ${a.round}) is not in its journal: ${JSON.stringify(a.matter)}; journal ${JSON.stringify(journal.map((e: Json) => [e.seq, e.kind, e.verb]))}`);
          continue;
        }
        a.seq = at.seq;
        a.kind = at.kind;
        delete a.matter;
        this.pinned.push(a);
      }
    });
    this.unpinned = stillUnpinned;

    // 3. Every pinned ack, in what the tails served.
    for (const a of this.pinned) {
      if (a.stream) {
        // An issued key: it authenticates (its grain's tail was read with it).
        if (!this.tails.has(a.subject)) this.lostAcks.add(a.n), p.lost.push(`key ${a.subject} (ack #${a.n}) was never read with`);
        continue;
      }
      const tail = this.tails.get(a.grain);
      if (!tail) {
        this.lostAcks.add(a.n);
        p.lost.push(`ack #${a.n} (${a.op}): no tail read for grain ${a.grain}`);
        continue;
      }
      const i = a.seq! - 1;
      if (tail.kinds[i] !== a.kind || tail.subjects[i] !== a.subject) {
        this.lostAcks.add(a.n);
        p.lost.push(`ack #${a.n} (${a.op}, cycle ${a.round}) expects ${a.kind} of ${a.subject} at ${a.grain}#${a.seq}; the tail serves ${tail.kinds[i] ?? 'nothing'} of ${tail.subjects[i] ?? '-'}`);
      }
    }

    // 4. The journal's database itself: every ack, every stream, every grain.
    this.checkDatabase(p);

    // 5. Replays of the last run's idempotent writes and signed callbacks.
    const replays = fresh.filter((a) => a.replay);
    const stride = Math.max(1, Math.ceil(replays.length / REPLAYS_PER_CYCLE));
    const sample = replays.filter((_, i) => i % stride === 0);
    await each(sample, READERS, async (a) => {
      reads++;
      const r = a.replay!;
      const res = await fetch(`${base}${r.path}`, { method: r.method, headers: r.headers, body: r.body });
      const text = await res.text();
      if (res.status !== r.status || text !== r.answer || res.headers.get('idempotent-replayed') !== 'true') {
        p.replays.push(`replay of ack #${a.n} (${a.op} ${r.method} ${r.path}, cycle ${a.round}) answered ${res.status} replayed=${res.headers.get('idempotent-replayed')}: ${text.slice(0, 300)}; first answer ${r.status}: ${r.answer.slice(0, 300)}`);
      }
    });
    for (const a of fresh) delete a.replay;

    this.writesChecked = this.pinned.length + this.unpinned.length;
    return { ...p, reads };
  }

  /** Pages one grain's tail, checking order and the prefix property against what was read before. */
  private async readTail(base: string, grain: Grain, full: boolean, p: Problems): Promise<number> {
    let tail = this.tails.get(grain.id);
    const known = tail?.digests.length ?? 0;
    let after = full ? 0 : Math.max(0, known - OVERLAP);
    let reads = 0;
    const seen: Array<{ digest: string; kind: string; subject: string }> = [];
    const start = after;
    for (;;) {
      reads++;
      const res = await get(base, `${grain.prefix}/events?after=${after}&limit=${PAGE}`, grain.headers);
      if (res.status !== 200) {
        p.lost.push(`tail of ${grain.kind} ${grain.id} answers ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
        return reads;
      }
      const results: Json[] = res.body.results ?? [];
      for (const e of results) {
        const expected = start + seen.length + 1;
        if (e.seq !== expected) {
          p.broken.push(`tail of ${grain.id}: seq ${e.seq} where ${expected} was due (after=${after})`);
          return reads;
        }
        seen.push({ digest: digest(e), kind: e.kind, subject: e.subject });
      }
      if (res.body.type === 'EMPTY' || results.length === 0 || res.body.nextAfter === null || res.body.nextAfter === undefined || res.body.nextAfter >= res.body.latestSeq) break;
      after = res.body.nextAfter;
    }
    if (start + seen.length < known) p.lost.push(`tail of ${grain.id} ends at ${start + seen.length}; ${known} events were served before`);
    if (!tail) {
      tail = { grain, digests: [], kinds: [], subjects: [] };
      this.tails.set(grain.id, tail);
    }
    seen.forEach((e, i) => {
      const at = start + i;
      if (at < known && tail!.digests[at] !== e.digest) p.lost.push(`tail of ${grain.id}: the event at seq ${at + 1} changed (was ${tail!.kinds[at]} of ${tail!.subjects[at]}, now ${e.kind} of ${e.subject})`);
      tail!.digests[at] = e.digest;
      tail!.kinds[at] = e.kind;
      tail!.subjects[at] = e.subject;
    });
    return reads;
  }

  private checkMatterJournal(grain: string, id: string, matter: Json, journal: Json[], asset: Json, p: Problems): void {
    if (matter.version !== journal.length) p.broken.push(`Matter ${id}: version ${matter.version}, journal of ${journal.length}`);
    if (asset?.id !== matter.assetId) p.broken.push(`Matter ${id}: its Asset ${asset?.id} is not ${matter.assetId}`);
    const tail = this.tails.get(grain);
    const digests = journal.map(digest);
    journal.forEach((e: Json, i: number) => {
      if (i > 0 && e.seq <= journal[i - 1].seq) p.broken.push(`Matter ${id}: journal seqs not increasing at ${i} (${journal[i - 1].seq} then ${e.seq})`);
      // The journal entry is the tail's entry at that seq (a seq past what the tail read was written since).
      if (tail && e.seq <= tail.kinds.length && (tail.kinds[e.seq - 1] !== e.kind || tail.subjects[e.seq - 1] !== id)) {
        p.broken.push(`Matter ${id}: journal entry ${i + 1} (${e.kind} at seq ${e.seq}) is ${tail.kinds[e.seq - 1]} of ${tail.subjects[e.seq - 1]} in the tail`);
      }
    });
    const before = this.journals.get(id) ?? [];
    if (digests.length < before.length) p.lost.push(`Matter ${id}: journal of ${digests.length} entries; ${before.length} were read before`);
    before.forEach((d, i) => {
      if (digests[i] !== undefined && digests[i] !== d) p.lost.push(`Matter ${id}: journal entry ${i + 1} changed since it was read (now ${journal[i].kind} at seq ${journal[i].seq})`);
    });
    this.journals.set(id, digests);
  }

  /** The database directly, read-only beside the running service: every ack where its answer put it; no gap or duplicate in any stream or grain. */
  private checkDatabase(p: Problems): void {
    const db = new Database(this.dbFile, { readonly: true, fileMustExist: true });
    try {
      const bySeq = db.prepare("SELECT kind, json_extract(body, '$.subject') AS subject FROM events WHERE grain = ? AND seq = ?");
      const byVersion = db.prepare("SELECT kind, json_extract(body, '$.subject') AS subject FROM events WHERE stream = ? AND version = ?");
      for (const a of this.pinned) {
        const row = (a.stream ? byVersion.get(a.stream.name, a.stream.version) : bySeq.get(a.grain, a.seq)) as { kind: string; subject: string } | undefined;
        if (!row || row.kind !== a.kind || row.subject !== a.subject) {
          this.lostAcks.add(a.n);
          p.lost.push(`ack #${a.n} (${a.op}, cycle ${a.round}) expects ${a.kind} of ${a.subject} at ${a.stream ? `${a.stream.name} v${a.stream.version}` : `${a.grain}#${a.seq}`}; the database holds ${row ? `${row.kind} of ${row.subject}` : 'nothing'}`);
        }
      }
      const streams = db.prepare('SELECT stream, count(*) AS n, min(version) AS lo, max(version) AS hi FROM events GROUP BY stream HAVING lo != 1 OR hi != n').all() as Json[];
      for (const s of streams.slice(0, 20)) p.broken.push(`stream ${s.stream}: ${s.n} events, versions ${s.lo}..${s.hi}`);
      const grains = db.prepare('SELECT grain, count(*) AS n, min(seq) AS lo, max(seq) AS hi FROM events GROUP BY grain HAVING lo != 1 OR hi != n').all() as Json[];
      for (const g of grains.slice(0, 20)) p.broken.push(`grain ${g.grain}: ${g.n} events, seqs ${g.lo}..${g.hi}`);
    } finally {
      db.close();
    }
  }

  /** Events in the journal, all grains. */
  events(): number {
    const db = new Database(this.dbFile, { readonly: true, fileMustExist: true });
    try {
      return db.prepare('SELECT count(*) FROM events').pluck().get() as number;
    } finally {
      db.close();
    }
  }
}

/** Asks until the first 2xx; ms from spawn to it (Infinity past START_HANG_MS: a hang). */
async function firstSuccess(child: Child, path: string): Promise<number> {
  for (;;) {
    try {
      const res = await fetch(`${child.url}${path}`);
      await res.arrayBuffer();
      const afterSpawn = performance.now() - child.spawnedAt;
      if (res.ok || afterSpawn > START_HANG_MS) return res.ok ? afterSpawn : Infinity;
    } catch {
      if (performance.now() - child.spawnedAt > START_HANG_MS) return Infinity;
    }
  }
}

/** Spawns the service on `dir` and times its first answers to `paths`, all asked at once as soon as it listens (ms from spawn to the last), with the CPU it had used by then. */
async function timedStart(dir: string, env: Record<string, string>, paths: string[]): Promise<{ child: Child; firstAnswers: number; answers: number[]; cpuSeconds: number }> {
  const child = await spawnService(dir, env);
  const answers = await Promise.all(paths.map((path) => firstSuccess(child, path)));
  return { child, firstAnswers: Math.max(...answers), answers, cpuSeconds: child.cpuSeconds() };
}

describe('crash cycles', () => {
  const dir = tempDataDir('legalwork-crash-cycles-');
  let child: Child | undefined;
  afterAll(async () => {
    await child?.kill();
    removeDir(dir);
  });

  it(`${CYCLES} SIGKILLs (every tenth a SIGTERM) under mixed load on one data directory lose no acknowledged write, leave no gap, and restart as soon over the grown journal as over a tiny one`, async () => {
    const started = performance.now();
    const rng = seededRng(SEED);
    console.log(`crash cycles: ${CYCLES} cycles, seed ${SEED} (CRASH_SEED=${SEED} replays the mix and the durations)`);

    const operator = topLevelOperator(dir);
    const load = new MixedLoad({ rng, operator, clients: 12 });
    const checker = new Checker(load, join(dir, 'journal.db'));
    const restarts: number[] = [];
    let hungRestarts = 0;
    let checkMs = 0;
    let loadMs = 0;
    let terms = 0;
    // Every problem found, once each (a lost write is found again at every later check).
    const found = { lost: new Set<string>(), broken: new Set<string>(), replays: new Set<string>() };
    const MAX_PROBLEMS = 200;
    /** What a restart asks first: /healthz, and the oldest Matter once there is one. */
    const probes = () => {
      const oldest = load.matters.values().next().value;
      return ['/healthz', ...(oldest ? [`${oldest.grain.prefix}/matters/${oldest.id}`] : [])];
    };

    /** Spawns on the directory, its first answers timed (printed, not bounded: a busy machine is not what is measured). */
    const restart = async (): Promise<Child> => {
      const { child: c, firstAnswers, answers } = await timedStart(dir, operator.env, probes());
      restarts.push(firstAnswers);
      if (firstAnswers === Infinity) {
        hungRestarts++;
        console.log(`  a restart did not answer within ${START_HANG_MS} ms: spawn -> listening ${(c.listeningAt - c.spawnedAt).toFixed(0)} ms, answers ${answers.map((ms) => ms.toFixed(0)).join(', ')}`);
      }
      return c;
    };

    let cycles = 0;
    for (let cycle = 1; cycle <= CYCLES + 1; cycle++) {
      child = await restart();
      if (cycle === 1) await load.setup(child.url);

      const t0 = performance.now();
      const last = cycle === CYCLES + 1;
      const checked = await checker.check(child.url, last ? 'final' : cycle % 10 === 0 ? 'tenth' : 'incremental', rng);
      checkMs += performance.now() - t0;
      const news: string[] = [];
      for (const kind of ['lost', 'broken', 'replays'] as const) {
        for (const problem of checked[kind]) if (!found[kind].has(problem)) (found[kind].add(problem), news.push(`${kind}: ${problem}`));
      }
      if (news.length) console.log(`cycle ${cycle}: ${news.length} new problems:\n  ${news.slice(0, 10).join('\n  ')}`);
      const problems = found.lost.size + found.broken.size + found.replays.size;
      if (last || problems > MAX_PROBLEMS) break;

      const duration = 200 + rng() * 1300;
      const term = cycle % 10 === 0;
      const t1 = performance.now();
      const ackedBefore = load.ackCount;
      const run = load.run(child.url);
      await sleep(duration);
      // On a busy machine a fresh process's first requests can take all of a short window: the kill waits until the load is being answered, so every cycle kills mid-flight.
      await until(() => load.ackCount - ackedBefore >= MIN_ACKED, () => `cycle ${cycle}: ${MIN_ACKED} writes answered (${load.ackCount - ackedBefore})`, HANG_MS, 10);
      if (term) {
        child.proc.kill('SIGTERM');
        const code = await child.exited;
        expect(code, `cycle ${cycle}: SIGTERM under load must end the process cleanly\n${child.stderr().slice(-2000)}`).toBe(0);
        terms++;
      } else {
        await child.kill();
      }
      const stats = await run.done;
      cycles++;
      loadMs += performance.now() - t1;
      expect(stats.acked, `cycle ${cycle}: too few writes answered in ${duration.toFixed(0)} ms and the wait for them`).toBeGreaterThanOrEqual(MIN_ACKED);
      if (cycle % 10 === 0) {
        console.log(`  cycle ${cycle}: ${load.ackCount} writes acknowledged so far, ${checker.events()} events; this cycle ${stats.requests} requests over ${duration.toFixed(0)} ms, ${stats.unanswered} unanswered and ${stats.refused} refused at the ${term ? 'SIGTERM' : 'SIGKILL'}; its check ${checked.reads} reads; elapsed ${((performance.now() - started) / 1000).toFixed(0)} s`);
      }
    }
    const probed = probes();
    await child!.stop();
    expect(await child!.exited, 'the last stop').toBe(0);
    child = undefined;

    // Does the restart grow with the journal? Over the final journal and over a tiny one (a Matter in a workspace,
    // the same operator), taken in turn, each killed with SIGKILL once it has answered, as in the cycles.
    const tinyDir = tempDataDir('legalwork-crash-cycles-tiny-');
    let shape;
    try {
      // Held in `child` while it runs, so afterAll stops it whatever fails.
      const tinyService = (child = await spawnService(tinyDir, operator.env));
      const ws = (await (await fetch(`${tinyService.url}/workspaces`, { method: 'POST' })).json()).workspace.id as string;
      const opened = await fetch(`${tinyService.url}/workspaces/${ws}/matters`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"matterType":"patent_provisional"}' });
      const tinyPaths = ['/healthz', `/workspaces/${ws}/matters/${(await opened.json()).matter.id}`];
      await tinyService.stop();
      child = undefined;
      const killedAfterAnswering = (on: string, paths: string[]) => async () => {
        const run = await timedStart(on, operator.env, paths);
        child = run.child;
        await run.child.kill();
        child = undefined;
        return run;
      };
      shape = await startsCompared(SHAPE_ROUNDS, { big: killedAfterAnswering(dir, probed), tiny: killedAfterAnswering(tinyDir, tinyPaths) });
    } finally {
      removeDir(tinyDir);
    }

    const worst = Math.max(...restarts);
    const sorted = [...restarts].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    const seconds = (performance.now() - started) / 1000;
    const figures = (runs: Array<{ firstAnswers: number }>) => runs.map((r) => r.firstAnswers.toFixed(0)).join(', ');
    console.log(
      `crash cycles: ${cycles} cycles (${terms} by SIGTERM), seed ${SEED}; writes checked ${checker.writesChecked} (acknowledged ${load.ackCount}), lost ${checker.lostAcks.size}; other problems: broken ${found.broken.size}, replays answered otherwise ${found.replays.size}; ` +
        `worst restart ${worst.toFixed(0)} ms, median ${median.toFixed(0)} ms; over the final ${checker.events()} events ${figures(shape.big)} ms, over a tiny journal ${figures(shape.tiny)} ms (${startsLine(shape)}); ` +
        `5xx ${load.faults.length}; checks ${(checkMs / 1000).toFixed(1)} s, load ${(loadMs / 1000).toFixed(1)} s, total ${seconds.toFixed(0)} s`,
    );
    expect(load.faults, 'answers that were 5xx (or 2xx without a body)').toEqual([]);
    expect([...found.lost], 'acknowledged writes lost or changed').toEqual([]);
    expect([...found.broken], 'gaps, duplicates, disorder').toEqual([]);
    expect([...found.replays], 'idempotent writes and signed callbacks sent again and not answered as the first time').toEqual([]);
    expect(checker.lostAcks.size, 'lost').toBe(0);
    expect(cycles, 'cycles run').toBe(CYCLES);
    expect(checker.writesChecked).toBe(load.ackCount);
    expect(hungRestarts, `restarts that did not answer within ${START_HANG_MS} ms: ${restarts.map((ms) => ms.toFixed(0)).join(' ')}`).toBe(0);
    expect(shape.bestBigCpu, `CPU up to the first answers over the final journal against over a tiny one: ${startsLine(shape)}`).toBeLessThanOrEqual(shape.cpuBound);
    expect(shape.bestBig, `the first answers over the final journal against over a tiny one: ${startsLine(shape)}`).toBeLessThanOrEqual(shape.bound);
  }, Math.max(120_000, CYCLES * CYCLE_BUDGET_MS));
});
