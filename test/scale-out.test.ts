/**
 * Scale-out (issue 16; decisions.md, "Scale-out"): two real service
 * processes, A and B, on one PostgreSQL journal keep every promise one
 * process keeps. Each test starts its own pair on a schema of its own
 * (test/helpers/processes.ts) and drops it; the database, read directly, is
 * the ground truth the processes' answers are held to.
 *
 * - the ten-advance race on one Matter, split across both, ends as a serial
 *   order does: 3 commits, 1 escalation, 6 × 409, each stage once;
 * - a spend ceiling holds across both: exactly k paid acts of 2k+ land;
 * - an SSE subscriber on A receives what B commits, in seq order, whole;
 * - a paged tail read while both write never skips or repeats (fast-check);
 * - a SIGKILL of A under load: B keeps serving, and after A's restart no
 *   acknowledged write of either is missing;
 * - read-your-writes across processes: a read on one right after a write
 *   answered by the other sees it.
 *
 * Per-grain seqs are held to "strictly increasing, never skipped or repeated
 * by a reader" against the rows in the database; decisions.md says they need
 * not be gap-free, so no test asserts 1..latestSeq.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { send, ServicePair, type Answer, type ProcessName } from './helpers/processes.ts';
import { SseClient } from './helpers/sse-client.ts';
import { HANG_MS, until } from './helpers/wait.ts';

/**
 * Each test's timeout, a hang guard: a pair of processes starts in about a second on a quiet machine and in ten or
 * more when other work takes both cores, and what each test then does takes as long again.
 */
const PAIR_TEST_MS = 90_000;

let pair: ServicePair | undefined;
const sse: SseClient[] = [];
afterEach(async () => {
  for (const c of sse.splice(0)) c.close();
  await pair?.close();
  pair = undefined;
});

async function startPair(): Promise<ServicePair> {
  pair = await ServicePair.start();
  return pair;
}

/** Opens a sandbox workspace through `base`: its path prefix and its grain. */
async function openWorkspace(base: string): Promise<{ ws: string; grain: string }> {
  const opened = await send(base, 'POST', '/workspaces');
  expect(opened.status, JSON.stringify(opened.body)).toBe(201);
  const grain = opened.body.workspace.id as string;
  return { ws: `/workspaces/${grain}`, grain };
}

async function openMatter(base: string, ws: string, body: Record<string, unknown> = { matterType: 'patent_provisional' }): Promise<string> {
  const created = await send(base, 'POST', `${ws}/matters`, body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.matter.id as string;
}

const stagesOf = (events: Array<{ kind: string; verb?: string }>) => events.map((e) => `${e.kind}:${e.verb ?? ''}`);
/** One answer, short, for failure messages: `a:200 committed prepare`, `b:409 MATTER_WAITING_ON_SIGNER`. */
const brief = (on: ProcessName, a: Answer) =>
  `${on}:${a.status} ${a.body?.committed ? `committed ${a.body.committed.advanceTo}` : a.body?.escalated ? `escalated ${a.body.escalated.reservedAct}` : (a.body?.code ?? '')}`.trim();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every tail entry of a grain, paged through `base` (100 at a time). */
async function readWholeTail(base: string, ws: string): Promise<{ seqs: number[]; latestSeq: number }> {
  const seqs: number[] = [];
  let after = 0;
  for (;;) {
    const page = await send(base, 'GET', `${ws}/events?after=${after}&limit=100`);
    expect(page.status).toBe(200);
    for (const e of page.body.results) seqs.push(e.seq);
    if (page.body.results.length === 0) return { seqs, latestSeq: page.body.latestSeq };
    after = page.body.nextAfter;
  }
}

describe('two service processes on one PostgreSQL journal', () => {
  it('split the ten-advance race on one Matter into exactly 3 commits, 1 escalation and 6 × 409, each stage once, and both then serve the same Matter', async () => {
    const { a, b } = await startPair();
    const { ws } = await openWorkspace(a.url);
    const id = await openMatter(a.url, ws, { matterType: 'patent_provisional', consumerPattern: 'B2A' });
    // Both processes hold the Matter resident before the race: each may be the stale one.
    for (const p of [a, b]) expect((await send(p.url, 'GET', `${ws}/matters/${id}`)).body.matter.version).toBe(1);

    const on: ProcessName[] = Array.from({ length: 10 }, (_, i) => (i % 2 ? 'a' : 'b'));
    const answers = await Promise.all(on.map((p) => send(pair!.url(p), 'POST', `${ws}/matters/${id}/advance`, {})));
    const summary = answers.map((x, i) => brief(on[i], x));

    const commits = answers.filter((x) => x.status === 200 && x.body.committed);
    const escalations = answers.filter((x) => x.status === 200 && x.body.escalated);
    const conflicts = answers.filter((x) => x.status === 409);
    expect(commits.map((x) => x.body.committed.advanceTo).sort(), summary.join(', ')).toEqual(['examine', 'prepare', 'review']);
    expect(escalations, summary.join(', ')).toHaveLength(1);
    expect(escalations[0].body.escalated.reservedAct).toBe('sign');
    expect(conflicts, summary.join(', ')).toHaveLength(6);
    const gigId = escalations[0].body.escalated.gigId as string;
    for (const c of conflicts) {
      expect(c.body.code, JSON.stringify(c.body)).toBe('MATTER_WAITING_ON_SIGNER');
      expect(c.body.error).toContain(gigId);
    }

    const expected = ['matter.opened:intake', 'stage:prepare', 'stage:examine', 'stage:review', 'gig.posted:sign'];
    for (const p of ['a', 'b'] as const) {
      const journal = await send(pair!.url(p), 'GET', `${ws}/matters/${id}/journal`);
      expect(stagesOf(journal.body.events), `the journal as ${p} serves it`).toEqual(expected);
      const seqs = journal.body.events.map((e: { seq: number }) => e.seq);
      expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
      const matter = await send(pair!.url(p), 'GET', `${ws}/matters/${id}`);
      expect(matter.body.matter, `the Matter as ${p} serves it`).toMatchObject({ status: 'waiting_on_signer', stage: 'review', pendingGigId: gigId, version: 5 });
    }
    const rows = await pair!.query<{ version: number; kind: string }>('SELECT version, kind FROM events WHERE stream = $1 ORDER BY version', [id]);
    expect(rows.map((r) => r.version)).toEqual([1, 2, 3, 4, 5]);
  }, PAIR_TEST_MS);

  it('hold one key\'s spend ceiling across both: of 10 concurrent paid acts, exactly the 3 it admits land, the rest are 403 SPEND_CEILING, and the key\'s committed spend is 3 × the price', async () => {
    const { a, b } = await startPair();
    const PRICE = 199; // POST /patent/file-provisional
    const K = 3;
    const issued = await send(a.url, 'POST', '/keys', { email: 'ceiling@legalwork.test', spendCeilingUsd: K * PRICE });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    const auth = { authorization: `Bearer ${issued.body.key}` };
    const keyId = issued.body.keyId as string;
    // Both processes know the key (a keyed read) before the race: each holds a record of it.
    for (const p of [a, b]) expect((await send(p.url, 'GET', '/patent/search?q=acoustic', undefined, auth)).status).toBe(200);

    const act = { title: 'Map', inventors: ['Ada'], specificationSha256: createHash('sha256').update('the specification as filed').digest('hex') };
    const on: ProcessName[] = Array.from({ length: 10 }, (_, i) => (i % 2 ? 'a' : 'b'));
    const answers = await Promise.all(on.map((p) => send(pair!.url(p), 'POST', '/patent/file-provisional', act, auth)));
    const summary = answers.map((x, i) => brief(on[i], x)).join(', ');

    const landed = answers.filter((x) => x.status === 201);
    const refused = answers.filter((x) => x.status === 403);
    expect(landed.length, summary).toBe(K);
    expect(refused.length, summary).toBe(10 - K);
    for (const x of landed) expect(x.body.act.priceUsd).toBe(PRICE);
    for (const x of refused) expect(x.body, summary).toMatchObject({ type: 'BLOCKED', code: 'SPEND_CEILING', spendCeilingUsd: K * PRICE, priceUsd: PRICE });

    // The journal: the key's reservations net of releases, and the acts it holds.
    const [spend] = await pair!.query<{ usd: string | null }>(
      `SELECT sum(CASE kind WHEN 'key.spend.reserved' THEN (body::jsonb->'data'->>'amountUsd')::numeric ELSE -(body::jsonb->'data'->>'amountUsd')::numeric END) AS usd
         FROM events WHERE kind IN ('key.spend.reserved', 'key.spend.released')
          AND stream = (SELECT stream FROM events WHERE kind = 'key.issued' AND body::jsonb->'data'->>'keyId' = $1)`,
      [keyId],
    );
    expect(Number(spend.usd ?? 0), 'the key\'s committed spend in the journal').toBe(K * PRICE);
    const [acted] = await pair!.query<{ n: string }>(`SELECT count(*) AS n FROM events WHERE grain = $1 AND kind = 'capability.acted'`, [keyId]);
    expect(Number(acted.n), 'paid acts journaled for the key').toBe(K);

    // And each process says so: one more act is refused on either, naming the spend committed.
    for (const p of ['a', 'b'] as const) {
      const more = await send(pair!.url(p), 'POST', '/patent/file-provisional', act, auth);
      expect(more.status, `${p}: ${JSON.stringify(more.body)}`).toBe(403);
      expect(more.body, `one more act on ${p}`).toMatchObject({ code: 'SPEND_CEILING', committedUsd: K * PRICE });
    }
  }, PAIR_TEST_MS);

  it('deliver to an SSE subscriber on A the events committed through B, in seq order, none missing or repeated', async () => {
    const { a, b } = await startPair();
    const { ws, grain } = await openWorkspace(a.url);
    const first = await openMatter(a.url, ws);
    const backlog = await pair!.grainSeqs(grain);

    const client = new SseClient(`${a.url}${ws}/events/stream`);
    sse.push(client);
    await client.opened;
    expect(client.status).toBe(200);
    await client.until(() => client.frames.length >= backlog.length, HANG_MS, `the backlog, seqs ${backlog}`);
    expect(client.ids()).toEqual(backlog);

    // Only B writes now: nothing A commits itself can wake the subscriber.
    const second = await openMatter(b.url, ws);
    for (let i = 0; i < 3; i++) expect((await send(b.url, 'POST', `${ws}/matters/${second}/advance`, {})).status).toBe(200);
    const committed = await pair!.grainSeqs(grain);
    expect(committed.length).toBeGreaterThan(backlog.length);
    const last = committed[committed.length - 1];
    // Delivered at all: A learns of B's commits only from PostgreSQL's NOTIFY (it never polls the journal), so
    // without it the frame never comes. How soon it comes is no promise of the service, and no bound here.
    await client.until(() => client.ids().includes(last), HANG_MS, `B's last commit (seq ${last}; the journal holds [${committed}]) on the subscriber on A`);
    expect(client.ids()).toEqual(committed);
    const tailOnB = await send(b.url, 'GET', `${ws}/events?after=0&limit=500`);
    expect(client.frames.map((f) => JSON.parse(f.data!))).toEqual(tailOnB.body.results);

    // Then both write at once: still every event once, in seq order.
    await Promise.all([
      (async () => {
        for (let i = 0; i < 4; i++) await send(a.url, 'POST', `${ws}/matters/${first}/advance`, {});
      })(),
      (async () => {
        for (let i = 0; i < 3; i++) await openMatter(b.url, ws);
      })(),
    ]);
    const all = await pair!.grainSeqs(grain);
    const end = all[all.length - 1];
    await client.until(() => client.ids().includes(end), HANG_MS, `the last commit (seq ${end}; the journal holds [${all}]) on the subscriber on A`);
    // A negative: no repeat straggling in after the end. A loaded core can only make the window too short to see one, never fail it.
    await sleep(100);
    expect(client.ids()).toEqual(all);
  }, PAIR_TEST_MS);

  it('never skip or repeat an event in a paged tail read while both write (fast-check, 20 seeds)', async () => {
    const { a, b } = await startPair();
    const op = fc.record({ on: fc.constantFrom<ProcessName>('a', 'b'), kind: fc.constantFrom('create', 'advance', 'advance'), pick: fc.nat() });
    const reader = fc.array(fc.record({ on: fc.constantFrom<ProcessName>('a', 'b'), limit: fc.integer({ min: 1, max: 6 }) }), { minLength: 1, maxLength: 8 });
    const workload = fc.record({
      lanes: fc.array(fc.array(op, { minLength: 1, maxLength: 8 }), { minLength: 2, maxLength: 6 }),
      readers: fc.array(reader, { minLength: 1, maxLength: 3 }),
      openOn: fc.constantFrom<ProcessName>('a', 'b'),
    });
    await fc.assert(
      fc.asyncProperty(workload, async ({ lanes, readers, openOn }) => {
        const { ws, grain } = await openWorkspace(pair!.url(openOn));
        const matters = [await openMatter(pair!.url(openOn), ws)];
        let writing = true;
        const writers = Promise.all(
          lanes.map(async (lane) => {
            for (const w of lane) {
              const base = w.on === 'a' ? a.url : b.url;
              if (w.kind === 'create') matters.push(await openMatter(base, ws));
              else {
                const answer = await send(base, 'POST', `${ws}/matters/${matters[w.pick % matters.length]}/advance`, {});
                expect([200, 409], JSON.stringify(answer.body)).toContain(answer.status);
              }
            }
          }),
        ).finally(() => (writing = false));
        // Its failure is reported below, once the readers are done (not as an unhandled rejection meanwhile).
        writers.catch(() => undefined);

        /** One reader: pages with its limits on its processes while the writers write, then until a page comes back empty once they have stopped. */
        const pageThrough = async (reads: Array<{ on: ProcessName; limit: number }>) => {
          const seen: number[] = [];
          const pages: string[] = [];
          let after = 0;
          for (let i = 0; ; i++) {
            const stopped = !writing;
            const { on, limit } = reads[i % reads.length];
            const page = await send(pair!.url(on), 'GET', `${ws}/events?after=${after}&limit=${limit}`);
            expect(page.status, JSON.stringify(page.body)).toBe(200);
            const got: number[] = page.body.results.map((e: { seq: number }) => e.seq);
            pages.push(`${on}:after=${after}:[${got}]`);
            for (const s of got) {
              expect(s, `a page repeats or goes back (pages ${pages.join(' ')})`).toBeGreaterThan(seen.length ? seen[seen.length - 1] : after);
              seen.push(s);
            }
            expect(got.length).toBeLessThanOrEqual(limit);
            if (got.length) expect(page.body.latestSeq).toBeGreaterThanOrEqual(got[got.length - 1]);
            after = page.body.nextAfter;
            if (stopped && got.length === 0) return { seen, pages, after, latestSeq: page.body.latestSeq as number, on };
          }
        };
        const reading = Promise.all(readers.map(pageThrough));
        await Promise.allSettled([writers, reading]);
        await writers;
        const read = await reading;
        const journal = await pair!.grainSeqs(grain);
        for (const r of read) {
          expect(r.after, `the final page (on ${r.on}) ends at the tail's latestSeq`).toBe(r.latestSeq);
          expect(r.latestSeq).toBe(journal[journal.length - 1]);
          expect(r.seen, `the pages read (${r.pages.join(' ')}) against the journal`).toEqual(journal);
        }
      }),
      { numRuns: 20, endOnFailure: true },
    );
  }, 2 * PAIR_TEST_MS);

  it('keep serving on B when A is SIGKILLed under load, and after A restarts every write either acknowledged is there', async () => {
    await startPair();
    const p = pair!;
    const { ws, grain } = await openWorkspace(p.a.url);
    interface Acked {
      on: ProcessName;
      door: 'create' | 'advance';
      id: string;
      version: number;
      at: number;
      advanceTo?: string;
      gigId?: string;
    }
    const acked: Acked[] = [];
    const matters: string[] = [];
    const failuresOnB: string[] = [];
    let stopB = false;
    /** Set when the test ends, however it ends: no client outlives it. */
    let halt = false;
    /** A pause between a client's requests: none while the kill is under way, some while A starts again (its start-up needs the CPU too). */
    let pace = 0;
    let phase = 'before the kill';
    // The URLs the clients use (A's changes when it restarts).
    const urls: Record<ProcessName, string> = { a: p.a.url, b: p.b.url };

    const record = (on: ProcessName, door: Acked['door'], answer: Answer) => {
      const m = answer.body.matter;
      acked.push({ on, door, id: m.id, version: m.version, at: Date.now(), advanceTo: answer.body.committed?.advanceTo, gigId: answer.body.escalated?.gigId });
    };
    /** One client on `on`: opens Matters and advances them, or (on B) advances Matters A opened. */
    const client = async (on: ProcessName, n: number, until: () => boolean) => {
      for (let round = 0; !until() && !halt; round++) {
        try {
          const cross = on === 'b' && round % 2 === 1 && matters.length > 0;
          let id: string;
          if (cross) id = matters[(n * 7 + round) % matters.length];
          else {
            const created = await send(urls[on], 'POST', `${ws}/matters`, { matterType: 'patent_provisional' });
            if (created.status !== 201) throw new Error(`create on ${on} answered ${created.status}: ${JSON.stringify(created.body)}`);
            record(on, 'create', created);
            id = created.body.matter.id;
            matters.push(id);
          }
          for (let i = 0; i < 5 && !until(); i++) {
            if (pace) await sleep(pace);
            const answer = await send(urls[on], 'POST', `${ws}/matters/${id}/advance`, {});
            if (answer.status === 409) break;
            if (answer.status !== 200) throw new Error(`advance on ${on} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
            record(on, 'advance', answer);
          }
        } catch (error) {
          // A request A never answered: A is gone, its clients stop.
          if (on === 'a' && error instanceof TypeError) return;
          if (on === 'b') {
            failuresOnB.push(`${phase}: ${String(error instanceof TypeError ? `${error.message}: ${String(error.cause)}` : error)}`);
            await sleep(20);
            continue;
          }
          throw error;
        }
      }
    };

    const count = (on: ProcessName, since = 0) => acked.filter((w) => w.on === on && w.at > since).length;
    let aDead = false;
    let stopA2 = false;
    const aClients: Array<Promise<void>> = [];
    const aClientsAgain: Array<Promise<void>> = [];
    const bClients: Array<Promise<void>> = [];
    try {
      aClients.push(...Array.from({ length: 4 }, (_, n) => client('a', n, () => aDead)));
      bClients.push(...Array.from({ length: 4 }, (_, n) => client('b', n, () => stopB)));
      // Under way on both (however loaded the machine), then a random moment mid-flight.
      await until(() => count('a') >= 20 && count('b') >= 20, () => `load under way: a ${count('a')}, b ${count('b')} acknowledged`);
      await sleep(Math.floor(Math.random() * 300));
      const killedAt = Date.now();
      phase = 'while A was down';
      await p.kill('a');
      await Promise.all(aClients);
      aDead = true;
      // A is down: B goes on.
      await until(() => count('b', killedAt) >= 20 || failuresOnB.length > 0, () => `B acknowledged ${count('b', killedAt)} writes while A was down; failures ${failuresOnB}`);
      expect(failuresOnB, 'B answered neither 2xx nor 409').toEqual([]);
      pace = 25;
      const restarted = await p.spawn('a');
      const restartedAt = Date.now();
      urls.a = restarted.url;
      phase = 'after A restarted';
      // A is back: both go on.
      aClientsAgain.push(...Array.from({ length: 3 }, (_, n) => client('a', n + 10, () => stopA2)));
      await until(() => (count('a', restartedAt) >= 10 && count('b', restartedAt) >= 10) || failuresOnB.length > 0, () => `after the restart: a ${count('a', restartedAt)}, b ${count('b', restartedAt)} acknowledged`);
      stopA2 = true;
      stopB = true;
      await Promise.all([...bClients, ...aClientsAgain]);
    } finally {
      halt = true;
      await Promise.allSettled([...aClients, ...bClients, ...aClientsAgain]);
    }
    expect(failuresOnB, 'B answered neither 2xx nor 409').toEqual([]);

    // Every acknowledged write, as either process serves it after the restart.
    const ids = [...new Set(acked.map((w) => w.id))];
    for (const on of ['a', 'b'] as const) {
      const served = new Map<string, { matter: any; journal: Array<{ kind: string; verb?: string; seq: number; data: any }> }>();
      for (let i = 0; i < ids.length; i += 16) {
        await Promise.all(
          ids.slice(i, i + 16).map(async (id) => {
            const got = await send(urls[on], 'GET', `${ws}/matters/${id}`);
            expect(got.status, `${on}: GET ${id}`).toBe(200);
            served.set(id, got.body);
          }),
        );
      }
      for (const w of acked) {
        const m = served.get(w.id)!;
        const where = `${w.door} of ${w.id} acknowledged by ${w.on} at version ${w.version}, as ${on} serves it`;
        expect(m.journal.length, where).toBeGreaterThanOrEqual(w.version);
        expect(m.matter.version, where).toBe(m.journal.length);
        if (w.door === 'create') expect(stagesOf([m.journal[0]])[0], where).toBe('matter.opened:intake');
        else if (w.advanceTo) expect(stagesOf([m.journal[w.version - 1]])[0], where).toBe(`stage:${w.advanceTo}`);
        else {
          const posted = m.journal.findIndex((e) => e.kind === 'gig.posted' && e.data.gigId === w.gigId);
          expect(posted, where).toBeGreaterThanOrEqual(0);
          expect(posted, where).toBeLessThan(w.version);
        }
      }
    }
    // Nothing half-written, and a tail read on either serves exactly the journal's rows.
    expect(await p.streamsWithGaps(grain), 'streams whose versions are not 1..n').toEqual([]);
    const journal = await p.grainSeqs(grain);
    for (const on of ['a', 'b'] as const) {
      const tail = await readWholeTail(urls[on], ws);
      expect(tail.seqs, `the tail as ${on} pages it`).toEqual(journal);
      expect(tail.latestSeq).toBe(journal[journal.length - 1]);
    }
  }, PAIR_TEST_MS);

  it('read their writes across processes: right after one answers an advance, a read on the other shows the new stage and version', async () => {
    const { a, b } = await startPair();
    const { ws } = await openWorkspace(a.url);
    const id = await openMatter(a.url, ws, { matterType: 'patent_provisional', consumerPattern: 'B2A' });
    // Both hold the Matter resident, so the reader's copy is the one to go stale.
    for (const p of [a, b]) expect((await send(p.url, 'GET', `${ws}/matters/${id}`)).status).toBe(200);

    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      const [writer, reader]: ProcessName[] = i % 2 === 0 ? ['b', 'a'] : ['a', 'b'];
      const answer = await send(pair!.url(writer), 'POST', `${ws}/matters/${id}/advance`, {});
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const read = await send(pair!.url(reader), 'GET', `${ws}/matters/${id}`);
      seen.push(`${writer} answered ${answer.body.matter.stage}@${answer.body.matter.version}, ${reader} read ${read.body.matter.stage}@${read.body.matter.version}`);
      expect({ stage: read.body.matter.stage, version: read.body.matter.version, status: read.body.matter.status }, seen.join('; ')).toEqual({
        stage: answer.body.matter.stage,
        version: answer.body.matter.version,
        status: answer.body.matter.status,
      });
      const journal = await send(pair!.url(reader), 'GET', `${ws}/matters/${id}/journal`);
      expect(journal.body.events.length, `${reader}'s journal of the Matter after ${writer}'s advance`).toBe(answer.body.matter.version);
    }
  }, PAIR_TEST_MS);
});
