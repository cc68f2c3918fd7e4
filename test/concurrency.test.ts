/**
 * Races. Commands to one Matter run strictly one at a time through its
 * mailbox; commands to different Matters run in parallel. Proven over a real
 * listening server (concurrent HTTP requests) and, with fast-check's
 * scheduler reordering the journal's and the supply network's answers, as a
 * property: two concurrent writes on one Matter end exactly as one of the two
 * serial orders would.
 */
import fc from 'fast-check';
import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { simulatedSupplyNetwork, type GigPost, type PostedGig, type SupplyNetwork } from '../src/domain/supply-network.ts';
import { SqliteJournal } from '../src/journal/sqlite.ts';
import type { JournalStore } from '../src/journal/store.ts';
import { call, listeningApp, tempDir, testApp, workspace, type TestApp } from './helpers/app.ts';

interface Answer {
  status: number;
  body: any;
}

async function post(base: string, path: string, body: unknown = {}): Promise<Answer> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}
async function get(base: string, path: string): Promise<Answer> {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: await res.json() };
}
const stagesOf = (events: Array<{ kind: string; verb?: string }>) => events.map((e) => `${e.kind}:${e.verb ?? ''}`);

describe('one Matter, ten concurrent advances, over a real socket', () => {
  const opened: TestApp[] = [];
  afterEach(async () => {
    while (opened.length) await opened.pop()!.close();
  });

  it('gives exactly three commits, one escalation and six 409s, and a journal with each stage once', async () => {
    const { app, url } = await listeningApp();
    opened.push(app);
    const ws = await workspace(app);
    const created = await post(url, `${ws}/matters`, { matterType: 'patent_provisional', consumerPattern: 'B2A' });
    expect(created.status).toBe(201);
    const id = created.body.matter.id as string;

    const answers = await Promise.all(Array.from({ length: 10 }, () => post(url, `${ws}/matters/${id}/advance`)));

    const commits = answers.filter((a) => a.status === 200 && a.body.committed);
    const escalations = answers.filter((a) => a.status === 200 && a.body.escalated);
    const conflicts = answers.filter((a) => a.status === 409);
    expect(commits.map((a) => a.body.committed.advanceTo).sort()).toEqual(['examine', 'prepare', 'review']);
    expect(escalations).toHaveLength(1);
    expect(escalations[0].body.escalated.reservedAct).toBe('sign');
    expect(conflicts).toHaveLength(6);
    const gigId = escalations[0].body.escalated.gigId as string;
    for (const c of conflicts) {
      expect(c.body.code).toBe('MATTER_WAITING_ON_SIGNER');
      expect(c.body.error).toContain(gigId);
    }

    const journal = await get(url, `${ws}/matters/${id}/journal`);
    expect(stagesOf(journal.body.events)).toEqual(['matter.opened:intake', 'stage:prepare', 'stage:examine', 'stage:review', 'gig.posted:sign']);
    const seqs = journal.body.events.map((e: { seq: number }) => e.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    const matter = await get(url, `${ws}/matters/${id}`);
    expect(matter.body.matter).toMatchObject({ status: 'waiting_on_signer', stage: 'review', pendingGigId: gigId, version: 5 });
  });

  it('runs different Matters in parallel while each stays serial', async () => {
    const { app, url } = await listeningApp();
    opened.push(app);
    const ws = await workspace(app);
    const ids = await Promise.all(Array.from({ length: 12 }, async () => (await post(url, `${ws}/matters`, { matterType: 'contract_review' })).body.matter.id as string));
    // Five concurrent advances on each of twelve Matters, all in flight together.
    const answers = await Promise.all(ids.map((id) => Promise.all(Array.from({ length: 5 }, () => post(url, `${ws}/matters/${id}/advance`)))));
    for (const [i, perMatter] of answers.entries()) {
      expect(perMatter.filter((a) => a.status === 200)).toHaveLength(4);
      expect(perMatter.filter((a) => a.status === 409)).toHaveLength(1);
      const journal = await get(url, `${ws}/matters/${ids[i]}/journal`);
      expect(stagesOf(journal.body.events)).toEqual(['matter.opened:intake', 'stage:prepare', 'stage:examine', 'stage:review', 'gig.posted:sign']);
    }
  });

  it('lets other Matters move while one Matter is busy, and queues that Matter behind its own command', async () => {
    // A supply network that holds the Gig post of one chosen Matter until released.
    let held: string | undefined;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const real = simulatedSupplyNetwork();
    const supply: SupplyNetwork = {
      async post(gig: GigPost): Promise<PostedGig> {
        if (gig.matterId === held) await released;
        return real.post(gig);
      },
    };
    const { app, url } = await listeningApp({ supply });
    opened.push(app);
    const ws = await workspace(app);
    const [a, b] = await Promise.all([0, 1].map(async () => (await post(url, `${ws}/matters`, { matterType: 'patent_provisional' })).body.matter.id as string));
    for (let i = 0; i < 3; i++) expect((await post(url, `${ws}/matters/${a}/advance`)).status).toBe(200);
    held = a;

    const busy = post(url, `${ws}/matters/${a}/advance`); // escalates; its Gig post is held
    const queued = post(url, `${ws}/matters/${a}/advance`); // must wait behind it
    const settled: string[] = [];
    void busy.then(() => settled.push('busy'));
    void queued.then(() => settled.push('queued'));

    // Matter b walks all the way to its own escalation meanwhile.
    const others = [];
    for (let i = 0; i < 4; i++) others.push(await post(url, `${ws}/matters/${b}/advance`));
    expect(others.map((o) => o.status)).toEqual([200, 200, 200, 200]);
    expect(others[3].body.escalated.reservedAct).toBe('sign');
    expect(settled).toEqual([]);
    // The escalation is journaled before its Gig is posted: a read sees it while the post is held.
    const during = await get(url, `${ws}/matters/${a}`);
    expect(during.body.matter.status).toBe('waiting_on_signer');

    release();
    const [first, second] = await Promise.all([busy, queued]);
    expect(first.status).toBe(200);
    expect(first.body.escalated.reservedAct).toBe('sign');
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('MATTER_WAITING_ON_SIGNER');
    expect(settled).toEqual(['busy', 'queued']);
  });
});

/**
 * The commands of the property: every journal-writing door of a Matter. A
 * gig-result names the Gig pending when the race starts (or a made-up one).
 */
type Command = { door: string; body: (gigId: string | undefined) => unknown };
const attestation = { signedBy: FIXTURE.eligibleSigner, credentialRef: 'uspto-reg:70001', artifactHash: `sha256:${'c'.repeat(64)}` };
const COMMANDS: Record<string, Command> = {
  advance: { door: 'advance', body: () => ({}) },
  consent: { door: 'consent', body: () => ({ actor: 'client', scope: 'engagement' }) },
  document: { door: 'documents', body: () => ({ name: 'claims.pdf', kind: 'draft', sha256: 'd'.repeat(64) }) },
  direction: { door: 'client-direction', body: () => ({ instruction: 'proceed as drafted' }) },
  withdraw: { door: 'terminal', body: () => ({ outcome: 'withdrawn', byClient: true }) },
  referOut: { door: 'terminal', body: () => ({ outcome: 'referred_out', referredTo: 'Outside Counsel LLP' }) },
  attest: { door: 'gig-result', body: (gigId) => ({ gigId: gigId ?? 'gig_none', outcome: 'attested', attestation }) },
  sendBack: { door: 'gig-result', body: (gigId) => ({ gigId: gigId ?? 'gig_none', outcome: 'send_back', memo: 'Claim 2 lacks support.' }) },
  decline: { door: 'gig-result', body: (gigId) => ({ gigId: gigId ?? 'gig_none', outcome: 'declined', memo: 'Cannot sign as drafted.' }) },
};
const commandName = fc.constantFrom(...(Object.keys(COMMANDS) as Array<keyof typeof COMMANDS>));
// Prefixes lean on advance so that deep states (waiting on a Signer, sign, file) are reached often.
const prefixCommand = fc.oneof({ weight: 4, arbitrary: fc.constant('advance' as const) }, { weight: 3, arbitrary: commandName });

describe('two concurrent writes on one Matter behave like some serial order', () => {
  let app: TestApp;
  let ws: string;
  let dir: string;
  /** The scheduler of the current race, or null while setting up and replaying serially. */
  let scheduler: fc.Scheduler | null = null;

  beforeAll(async () => {
    dir = tempDir();
    const real = new SqliteJournal(dir);
    // The journal's and the supply network's answers come back when the scheduler says so.
    const journal: JournalStore = {
      append: (grain, writes) => (scheduler ? scheduler.scheduleFunction(async function append() { return real.append(grain, writes); })() : real.append(grain, writes)),
      readStream: (s) => real.readStream(s),
      readSnapshot: (s) => real.readSnapshot(s),
      readHead: (s) => real.readHead(s),
      putSnapshot: (s, snapshot) => real.putSnapshot(s, snapshot),
      readTail: (g, q) => real.readTail(g, q),
      readAnswer: (s, t) => real.readAnswer(s, t),
      putAnswer: (row) => real.putAnswer(row),
      listItems: (g, k, t, a, l) => real.listItems(g, k, t, a, l),
      latestSeq: (g) => real.latestSeq(g),
      streamVersion: (s) => real.streamVersion(s),
      streamHeads: (g, k, a, l) => real.streamHeads(g, k, a, l),
      entityHeads: (g, k, a, l) => real.entityHeads(g, k, a, l),
      countStreams: (g, k) => real.countStreams(g, k),
      readIntents: (after, limit) => real.readIntents(after, limit),
      pendingIntents: (after, limit) => real.pendingIntents(after, limit),
      population: (g, m) => real.population(g, m),
      streamsInState: (g, t, p, a, l) => real.streamsInState(g, t, p, a, l),
      resetPopulation: (g, m, s, c) => real.resetPopulation(g, m, s, c),
      expiredGrains: (before, limit) => real.expiredGrains(before, limit),
      purgeGrain: (g, budget) => real.purgeGrain(g, budget),
      isPurged: (g) => real.isPurged(g),
      close: () => real.close(),
    };
    const network = simulatedSupplyNetwork();
    const supply: SupplyNetwork = { post: (gig) => (scheduler ? scheduler.scheduleFunction(async function post() { return network.post(gig); })() : network.post(gig)) };
    app = await testApp({ journal, supply });
    ws = await workspace(app);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function send(id: string, name: string, gigId: string | undefined) {
    const c = COMMANDS[name];
    const res = await call(app, 'POST', `${ws}/matters/${id}/${c.door}`, c.body(gigId));
    return { status: res.status, code: res.body?.code as string | undefined };
  }
  async function open(pattern: string, client: string | undefined, prefix: string[]) {
    const res = await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', consumerPattern: pattern, ...(client ? { client: { name: client } } : {}) });
    const id = res.body.matter.id as string;
    for (const name of prefix) await send(id, name, (await call(app, 'GET', `${ws}/matters/${id}`)).body.matter.pendingGigId);
    return { id, gigId: (await call(app, 'GET', `${ws}/matters/${id}`)).body.matter.pendingGigId as string | undefined };
  }
  async function outcome(id: string) {
    const m = (await call(app, 'GET', `${ws}/matters/${id}`)).body.matter;
    const journal = (await call(app, 'GET', `${ws}/matters/${id}/journal`)).body.events;
    return { status: m.status, stage: m.stage, consented: m.consented, attestedActs: m.attestedActs, journal: stagesOf(journal) };
  }

  it('holds for random start states and random pairs of commands', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.constantFrom('B2A', 'B2A2D'),
        fc.constantFrom(undefined, FIXTURE.fulfillingClient, FIXTURE.decliningClient),
        fc.array(prefixCommand, { maxLength: 7 }),
        commandName,
        commandName,
        async (s, pattern, client, prefix, first, second) => {
          // The oracle: the same start state, then each serial order.
          const serial = [];
          for (const order of [[first, second], [second, first]]) {
            const replica = await open(pattern, client, prefix);
            const answers = [];
            for (const name of order) answers.push(await send(replica.id, name, replica.gigId));
            serial.push({ answers, final: await outcome(replica.id) });
          }
          // The race: both requests in flight, arrival and every answer ordered by the scheduler.
          const matter = await open(pattern, client, prefix);
          scheduler = s;
          let raced: Array<{ status: number; code: string | undefined }>;
          try {
            const a = s.schedule(Promise.resolve(), 'first arrives').then(() => send(matter.id, first, matter.gigId));
            const b = s.schedule(Promise.resolve(), 'second arrives').then(() => send(matter.id, second, matter.gigId));
            raced = await s.waitFor(Promise.all([a, b]));
          } finally {
            scheduler = null;
          }
          const final = await outcome(matter.id);
          for (const r of raced) expect(r.status).toBeLessThan(500);
          // Some serial order explains both answers and the end state.
          const [firstThenSecond, secondThenFirst] = serial;
          const asSerial = [
            { answers: firstThenSecond.answers, final: firstThenSecond.final },
            { answers: [secondThenFirst.answers[1], secondThenFirst.answers[0]], final: secondThenFirst.final },
          ];
          expect(asSerial, `${s.report().map((r) => r.label).join(' -> ')}`).toContainEqual({ answers: raced, final });
        },
      ),
      { numRuns: 60 },
    );
  });
});
