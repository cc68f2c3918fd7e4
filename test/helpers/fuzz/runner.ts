/**
 * Runs the fuzz: requests go out in batches, at a fixed concurrency over
 * keep-alive connections; each answer is judged by the oracle; 2xx answers
 * feed their ids back into the fixtures' pools. Around every batch the
 * tracked tails are read: a tail that moved although every request of the
 * batch addressed to its grain was refused is a failure (a refused request
 * wrote). The child's resident memory is sampled throughout.
 */
import type { Agent } from 'node:http';
import type { Child } from '../../../bench/lib/service.ts';
import type { Generator } from './generate.ts';
import { harvest, readTails, type Grain, type World } from './fixtures.ts';
import { send, type Answer, type FuzzRequest } from './http.ts';
import { describe, type Oracle } from './oracle.ts';

export interface RunOptions {
  total: number;
  concurrency: number;
  batch: number;
  /** Detailed failures kept (all are counted). */
  maxFailures: number;
  /** Stop early once this many problems are seen. */
  stopAfter: number;
  /** Every this many batches, one of requests the contract refuses whatever the state (0: none). */
  refusedEvery: number;
  log: (line: string) => void;
}

export interface Stats {
  sent: number;
  valid: number;
  byClass: Record<string, number>;
  byStatus: Map<number, number>;
  serverErrors: number;
  transportErrors: number;
  /** Requests sent again after a reset on a kept-alive connection. */
  retries: number;
  /** Per operation: requests sent, 2xx answers. */
  perOp: Map<string, { sent: number; ok: number }>;
  /** Per mutation: how often it was applied, and answered 2xx. */
  perMutation: Map<string, { sent: number; ok: number }>;
  batches: number;
  /** Batches of requests the contract refuses whatever the state. */
  refusedBatches: number;
  /** (batch, tail) pairs in which requests addressed the tail and every one was refused: the tail must not move. */
  tailChecks: number;
  tailMoves: number;
  peakRss: number;
  rssTimeline: Array<{ at: number; sent: number; rss: number }>;
  durationMs: number;
  problems: number;
  /** Distinct problems (ids stripped) -> count and one full example. */
  distinct: Map<string, { count: number; example: string }>;
}

const decode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** The tails a request may write: its grain's, or, at the top level, the keys it presents (or that own the Matter a signed callback answers). */
export function tailsOf(req: FuzzRequest, world: World): string[] {
  const m = /^\/(workspaces|tenants|firms)\/([^/?]+)/.exec(req.path);
  if (m) {
    const id = decode(m[2]);
    const g = world.grains.find((x) => x.kind === m[1] && x.id === id);
    return g ? [g.tail] : [];
  }
  const tops = world.grains.filter((g) => g.kind === 'top');
  const auth = ([] as string[]).concat(req.headers.authorization ?? []).join(' ');
  const out = tops.filter((g) => auth.includes(g.auth.authorization.slice('Bearer '.length))).map((g) => g.tail);
  const matter = /^\/matters\/([^/?]+)\/gig-result/.exec(req.path)?.[1];
  if (matter) for (const g of tops) if (g.pools.matters.includes(decode(matter))) out.push(g.tail);
  return out;
}

/** A problem's kind: its wording without the operation, ids and numbers (one example is kept per kind). */
export const signature = (problem: string) =>
  problem
    .replace(/\b(GET|POST|PUT|PATCH|DELETE|HEAD) \/\S*/g, 'OP')
    .replace(/\(declared: [^)]*\)/g, '')
    .replace(/\b(mt|as|gig|wh|dl|ws|tn|fm|rq|msg)_[0-9a-z]+/g, '$1_…')
    .replace(/\d{3,}/g, 'N');

export async function run(base: URL, agent: Agent, gen: Generator, oracle: Oracle, world: World, child: Child, o: RunOptions): Promise<Stats> {
  const s: Stats = {
    sent: 0,
    valid: 0,
    byClass: {},
    byStatus: new Map(),
    serverErrors: 0,
    transportErrors: 0,
    retries: 0,
    perOp: new Map(gen.ops.map((op) => [op.key, { sent: 0, ok: 0 }])),
    perMutation: new Map(),
    batches: 0,
    refusedBatches: 0,
    tailChecks: 0,
    tailMoves: 0,
    peakRss: 0,
    rssTimeline: [],
    durationMs: 0,
    problems: 0,
    distinct: new Map(),
  };
  const started = performance.now();
  const sample = () => {
    try {
      const { rss, peak } = child.memory();
      s.peakRss = Math.max(s.peakRss, rss, peak);
      return rss;
    } catch {
      return NaN;
    }
  };
  const sampler = setInterval(sample, 200);
  const fail = (text: string, key: string) => {
    s.problems++;
    const k = signature(key);
    const seen = s.distinct.get(k);
    if (seen) seen.count++;
    else if (s.distinct.size < o.maxFailures) s.distinct.set(k, { count: 1, example: text });
  };
  let nextReport = 0;
  try {
    let before = await readTails(base, agent, world);
    while (s.sent < o.total && s.problems < o.stopAfter) {
      // Every `refusedEvery`-th batch holds only requests the contract refuses whatever the state: there, no tail may move at all.
      const refusedOnly = o.refusedEvery > 0 && s.batches % o.refusedEvery === o.refusedEvery - 1;
      const batch: FuzzRequest[] = [];
      for (let i = 0; i < Math.min(o.batch, o.total - s.sent); i++) batch.push(gen.next(refusedOnly));
      if (refusedOnly) s.refusedBatches++;
      const answers: Array<Answer | undefined> = new Array(batch.length);
      const tails = batch.map((req) => tailsOf(req, world));
      let cursor = 0;
      await Promise.all(
        Array.from({ length: Math.min(o.concurrency, batch.length) }, async () => {
          while (cursor < batch.length) {
            const i = cursor++;
            const req = batch[i];
            const a = await send(base, agent, req);
            answers[i] = a;
            const { problems, json } = oracle.judge(req, a);
            record(s, req, a);
            if (problems.length) fail(describe(req, a, problems), problems.join(' | '));
            if (a.status >= 200 && a.status < 300 && json !== undefined) {
              for (const tail of tails[i]) harvest(world.byTail.get(tail) as Grain, json);
            }
          }
        }),
      );
      s.batches++;
      const after = await readTails(base, agent, world);
      for (const [tail, seq] of after) {
        const was = before.get(tail)!;
        const addressed = batch.map((req, i) => ({ req, a: answers[i], t: tails[i] })).filter(({ t }) => t.includes(tail));
        const accepted = addressed.some(({ a }) => a && a.status >= 200 && a.status < 300);
        if (seq !== was) s.tailMoves++;
        if (accepted) continue;
        if (addressed.length) s.tailChecks++;
        if (seq !== was) {
          const shown = addressed.slice(0, 4).map(({ req, a }) => describe(req, a)).join('\n---\n');
          fail(`the tail ${tail} moved from ${was} to ${seq} in a batch where no request addressed to it was accepted (${addressed.length} refused):\n${shown || '(no request addressed it)'}`, `tail moved without a 2xx: ${tail.slice(0, 3)}`);
        }
      }
      before = after;
      if (s.sent >= nextReport) {
        const rss = sample();
        s.rssTimeline.push({ at: Math.round(performance.now() - started), sent: s.sent, rss });
        o.log(`fuzz: ${s.sent}/${o.total} sent, ${Math.round(s.sent / ((performance.now() - started) / 1000))} req/s, rss ${(rss / 2 ** 20).toFixed(0)} MiB (the fuzzer's own ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB), problems ${s.problems}`);
        nextReport += Math.max(o.batch, Math.floor(o.total / 10));
      }
    }
  } finally {
    clearInterval(sampler);
    sample();
    s.durationMs = performance.now() - started;
  }
  return s;
}

function record(s: Stats, req: FuzzRequest, a: Answer): void {
  s.sent++;
  if (!req.mutations.length) s.valid++;
  const cls = a.error ? 'no answer' : `${String(a.status)[0]}xx`;
  s.byClass[cls] = (s.byClass[cls] ?? 0) + 1;
  if (a.error) s.transportErrors++;
  if (a.retried) s.retries++;
  else s.byStatus.set(a.status, (s.byStatus.get(a.status) ?? 0) + 1);
  if (a.status >= 500) s.serverErrors++;
  const ok = a.status >= 200 && a.status < 300 ? 1 : 0;
  const op = s.perOp.get(req.op);
  if (op) {
    op.sent++;
    op.ok += ok;
  }
  for (const m of req.mutations) {
    const name = m.split(/[:=]/)[0];
    const entry = s.perMutation.get(name) ?? { sent: 0, ok: 0 };
    entry.sent++;
    entry.ok += ok;
    s.perMutation.set(name, entry);
  }
}
