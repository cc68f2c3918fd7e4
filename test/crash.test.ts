/**
 * Crash safety, against a real process. The service runs as a child process
 * (`node bin/legalwork.js serve`) while this test drives concurrent creates
 * and advances at it; at a random moment it is SIGKILLed: no drain, no flush.
 * After a restart on the same data directory:
 * - every write that was answered 2xx before the kill is there, exactly as
 *   answered (its Matter, its version, the fact it committed);
 * - nothing is half-written: every Matter has its Asset, every multi-event
 *   commit is whole, every stream's versions are gap-free;
 * - two restarts in a row serve identical journals.
 * The kill comes at a random moment once the load is being answered (however
 * loaded the machine), not after a fixed delay a slow start could fill.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { removeDir, spawnService, tempDataDir, type Child } from '../bench/lib/service.ts';
import { HANG_MS, until } from './helpers/wait.ts';

interface Answered {
  door: 'create' | 'advance';
  id: string;
  /** The stream version the answer reported: the journal must reach it. */
  version: number;
  assetId?: string;
  advanceTo?: string;
  gigId?: string;
  answered?: string;
}

type Json = any;

async function request(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${base}${path}`, { method, ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: await res.json() };
}

/** One client: opens Matters and advances each until it stops, recording every 2xx it receives in full. */
async function client(base: string, ws: string, log: Answered[], n: number): Promise<void> {
  for (let round = 0; ; round++) {
    try {
      const fulfilling = (n + round) % 2 === 0;
      const created = await request(base, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', ...(fulfilling ? { client: { name: FIXTURE.fulfillingClient } } : {}) });
      if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
      const id = created.body.matter.id as string;
      log.push({ door: 'create', id, version: created.body.matter.version, assetId: created.body.matter.assetId });
      for (let i = 0; i < 6; i++) {
        const a = await request(base, 'POST', `${ws}/matters/${id}/advance`, { note: `step ${i}` });
        if (a.status !== 200) break;
        log.push({ door: 'advance', id, version: a.body.matter.version, advanceTo: a.body.committed?.advanceTo, gigId: a.body.escalated?.gigId, answered: a.body.escalated?.answered });
      }
    } catch (error) {
      // The process is gone: the request in flight was never answered.
      if (error instanceof TypeError) return;
      throw error;
    }
  }
}

/** Everything the service serves about every Matter of the workspace. */
async function snapshot(base: string, ws: string) {
  const matters = new Map<string, { matter: Json; journal: Json[]; asset: Json }>();
  let after = 0;
  for (;;) {
    const page = await request(base, 'GET', `${ws}/matters?limit=500&after=${after}`);
    expect(page.status).toBe(200);
    for (const m of page.body.results ?? []) {
      const full = await request(base, 'GET', `${ws}/matters/${m.id}`);
      expect(full.status).toBe(200);
      matters.set(m.id, { matter: full.body.matter, journal: full.body.journal, asset: full.body.asset });
    }
    if (page.body.nextAfter === null || page.body.nextAfter === undefined) break;
    after = page.body.nextAfter;
  }
  const workspace = await request(base, 'GET', ws);
  return { matters, counts: workspace.body.workspace.counts };
}

/**
 * What a restarted service serves once its outbox has resumed the Gig posts
 * the kill interrupted (a fulfilling fixture's post is answered at once).
 */
async function settled(base: string, ws: string) {
  // Past the hang guard, what is served is returned as it is, for the checks to name what is missing.
  for (const giveUp = performance.now() + HANG_MS; ; ) {
    const served = await snapshot(base, ws);
    const unanswered = [...served.matters.values()].filter(({ journal }) => journal[0].data.clientFixture === 'fulfilling' && journal[journal.length - 1].kind === 'gig.posted');
    if (unanswered.length === 0 || performance.now() > giveUp) return served;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const kindOf = (e: Json) => `${e.kind}:${e.verb ?? ''}`;

/** Every answered write is in what the restarted service serves, as it was answered. */
function expectAnsweredWritesPresent(log: Answered[], served: Awaited<ReturnType<typeof snapshot>>) {
  for (const w of log) {
    const m = served.matters.get(w.id);
    expect(m, `answered ${w.door} of ${w.id} is missing after the restart`).toBeDefined();
    expect(m!.journal.length, `${w.id} lost events answered at version ${w.version}`).toBeGreaterThanOrEqual(w.version);
    if (w.door === 'create') {
      expect(kindOf(m!.journal[0])).toBe('matter.opened:intake');
      expect(m!.matter.assetId).toBe(w.assetId);
    } else if (w.advanceTo) {
      expect(kindOf(m!.journal[w.version - 1])).toBe(`stage:${w.advanceTo}`);
    } else {
      const posted = m!.journal.findIndex((e: Json) => e.kind === 'gig.posted' && e.data.gigId === w.gigId);
      expect(posted, `gig ${w.gigId} of ${w.id}`).toBeGreaterThanOrEqual(0);
      expect(posted).toBeLessThan(w.version);
      // Answered at once by the fixture Signer: the attestation was in the same answered commit.
      if (w.answered === 'attested') expect(m!.journal[posted + 1].by).toBe('signer');
    }
  }
}

/** Nothing half-written: Assets with their Matters, whole commits, gap-free versions. */
function expectNothingHalfWritten(served: Awaited<ReturnType<typeof snapshot>>) {
  expect(served.counts.matters).toBe(served.matters.size);
  expect(served.counts.assets).toBe(served.matters.size);
  for (const [id, { matter, journal, asset }] of served.matters) {
    expect(matter.version).toBe(journal.length);
    expect(asset.id).toBe(matter.assetId);
    expect(asset.lineage).toContain(id);
    const seqs = journal.map((e: Json) => e.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    // The fulfilling fixture's Gig is answered right after it is journaled: by the post that
    // followed the commit, or by the outbox resuming that post after the restart.
    if (journal[0].data.clientFixture === 'fulfilling') {
      journal.forEach((e: Json, i: number) => {
        if (e.kind === 'gig.posted') expect(journal[i + 1]?.by, `${id}: a Gig post without its attestation`).toBe('signer');
      });
    }
  }
}

describe('a SIGKILL under load', () => {
  const dir = tempDataDir('legalwork-crash-');
  let child: Child | undefined;
  afterAll(async () => {
    await child?.kill();
    removeDir(dir);
  });

  it('loses no answered write, leaves nothing half-written, and restarts serve identical journals', async () => {
    child = await spawnService(dir);
    const opened = await request(child.url, 'POST', '/workspaces');
    expect(opened.status).toBe(201);
    const ws = `/workspaces/${opened.body.workspace.id}`;
    const log: Answered[] = [];

    for (const round of [1, 2]) {
      const clients = Array.from({ length: 16 }, (_, n) => client(child!.url, ws, log, n));
      const before = log.length;
      // A random moment, once the load is well under way.
      await until(() => log.length - before > 20, () => `round ${round}: more than 20 writes answered (${log.length - before})`);
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 1200)));
      await child.kill();
      await Promise.all(clients);

      child = await spawnService(dir);
      const served = await settled(child.url, ws);
      expectAnsweredWritesPresent(log, served);
      expectNothingHalfWritten(served);
    }

    // Two restarts in a row serve the same journals, byte for byte.
    const first = await settled(child.url, ws);
    await child.stop();
    child = await spawnService(dir);
    const second = await snapshot(child.url, ws);
    expect(second.counts).toEqual(first.counts);
    expect([...second.matters.keys()]).toEqual([...first.matters.keys()]);
    for (const [id, m] of first.matters) expect(second.matters.get(id)!.journal, id).toEqual(m.journal);
    await child.stop();
    child = undefined;
  }, 180_000);
});
