/**
 * Where Matters gather, held to the journal (issue 36): after random command
 * sequences over many Matters and their Deadline Ladders, legal and not,
 * the population doors answer exactly what a fold of the grain's journal
 * says (test/helpers/population.ts): per state how many and which entered
 * it first, per transition how many times taken, per facet how many; and
 * each state's pages, oldest first, list exactly the records the fold puts
 * there. On the pass's journal (SQLite, then PostgreSQL).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { KINDS, type PopulationKind } from '../src/engine/population.ts';
import { call, testApp, workspace, type TestApp } from './helpers/app.ts';
import { foldGathered, gatheredOf, grainEvents } from './helpers/population.ts';

const attestation = { signedBy: FIXTURE.eligibleSigner, credentialRef: 'uspto-reg:70001', artifactHash: `sha256:${'a'.repeat(64)}` };

/** What a command sends, given the Matter (or its Asset's ladder) and its pending Gig. */
const COMMANDS: Record<string, { door: (m: { id: string; assetId: string }) => string; body: (gigId: string | null, days: number) => unknown }> = {
  advance: { door: (m) => `matters/${m.id}/advance`, body: () => ({}) },
  attest: { door: (m) => `matters/${m.id}/gig-result`, body: (gigId) => ({ gigId: gigId ?? 'gig_none', outcome: 'attested', attestation }) },
  sendBack: { door: (m) => `matters/${m.id}/gig-result`, body: (gigId) => ({ gigId: gigId ?? 'gig_none', outcome: 'send_back', memo: 'Claim 2 lacks support.' }) },
  decline: { door: (m) => `matters/${m.id}/gig-result`, body: (gigId) => ({ gigId: gigId ?? 'gig_none', outcome: 'declined', memo: 'Cannot sign as drafted.' }) },
  direction: { door: (m) => `matters/${m.id}/client-direction`, body: () => ({ instruction: 'proceed as drafted' }) },
  consent: { door: (m) => `matters/${m.id}/consent`, body: () => ({ actor: 'client', scope: 'this Matter' }) },
  withdraw: { door: (m) => `matters/${m.id}/terminal`, body: () => ({ outcome: 'withdrawn', byClient: true }) },
  lapse: { door: (m) => `matters/${m.id}/terminal`, body: () => ({ outcome: 'lapsed', confirmedUnresponsiveTwice: true }) },
  referOut: { door: (m) => `matters/${m.id}/terminal`, body: () => ({ outcome: 'referred_out', referredTo: 'Outside Counsel LLP' }) },
  tick: { door: (m) => `deadlines/${m.assetId}/tick`, body: (_, days) => ({ days }) },
  ack: { door: (m) => `deadlines/${m.assetId}/ack`, body: () => ({ actor: 'Ada Lovelace' }) },
  monitor: { door: (m) => `deadlines/${m.assetId}/monitor`, body: () => ({ signerId: 'platform' }) },
  satisfy: { door: (m) => `deadlines/${m.assetId}/satisfy`, body: () => ({ evidenceRef: 'docket entry 12' }) },
  resolve: { door: (m) => `deadlines/${m.assetId}/resolve`, body: () => ({ outcome: 'clientNotice' }) },
};

const opening = fc.record({
  matterType: fc.constantFrom('patent_provisional', 'patent_maintenance', 'trademark_office_action'),
  client: fc.constantFrom(undefined, FIXTURE.fulfillingClient, FIXTURE.decliningClient),
  consumerPattern: fc.constantFrom('B2A', 'B2A2D'),
  title: fc.constantFrom('A map', `${FIXTURE.noticeEvePrefix} A map`, `${FIXTURE.ackDuePrefix} A map`),
});
const command = fc.record({
  matter: fc.nat({ max: 7 }),
  // Advances and ticks lean the walk into deep states (waiting on a Signer, past the notice rung).
  name: fc.oneof({ weight: 5, arbitrary: fc.constant('advance') }, { weight: 2, arbitrary: fc.constant('tick') }, { weight: 4, arbitrary: fc.constantFrom(...Object.keys(COMMANDS)) }),
  days: fc.integer({ min: 1, max: 12 }),
});

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});
afterAll(async () => app?.close());

/** Every record listed in one state, paged `limit` at a time: ids, oldest first. */
async function listed(ws: string, collection: string, state: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let after = 0;
  for (;;) {
    const page = await call(app, 'GET', `${ws}/inspection/${collection}/states/${state}?after=${after}&limit=${limit}`);
    expect(page.status, page.raw).toBe(200);
    if (page.body.type === 'EMPTY') return ids;
    ids.push(...page.body.results.map((r: { id: string }) => r.id));
    if (page.body.nextAfter === null) return ids;
    after = page.body.nextAfter;
  }
}

/** What the walks reached, across every run: the property is only as good as the states it visits. */
const reached = new Set<string>();

/** The grain's population of one kind, as the door answers it, equals the fold of its journal; and so do its states' pages. */
async function expectFolded(ws: string, kind: PopulationKind): Promise<void> {
  const grain = ws.slice('/workspaces/'.length);
  const { collection } = KINDS[kind];
  const answer = await call(app, 'GET', `${ws}/inspection/${collection}`);
  expect(answer.status, answer.raw).toBe(200);
  const folded = foldGathered(await grainEvents(app.services.journal, grain), kind);
  expect(gatheredOf(answer.body), `${kind}: the population against the fold of the journal`).toEqual(folded);
  for (const key of [...Object.keys(folded.states), ...Object.keys(folded.facets).map((f) => `facet ${f}`)]) reached.add(`${kind} ${key}`);
  if (Object.keys(folded.transitions).length) reached.add(`${kind} transitions`);
  for (const [state, { count, oldest }] of Object.entries(folded.states)) {
    const ids = await listed(ws, collection, state, 2);
    expect(ids, `${kind} in ${state}, paged`).toHaveLength(count);
    expect(new Set(ids).size).toBe(count);
    expect(ids[0], `${kind} in ${state}: the oldest first`).toBe(oldest);
  }
}

describe('where Matters gather', () => {
  it('per state and per transition, equals what the journal folds to after random command sequences over many Matters', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opening, { minLength: 3, maxLength: 8 }), fc.array(command, { minLength: 10, maxLength: 40 }), async (openings, commands) => {
        const ws = await workspace(app);
        const matters: Array<{ id: string; assetId: string }> = [];
        for (const o of openings) {
          const created = await call(app, 'POST', `${ws}/matters`, { matterType: o.matterType, consumerPattern: o.consumerPattern, asset: { title: o.title }, ...(o.client ? { client: { name: o.client } } : {}) });
          expect(created.status, created.raw).toBe(201);
          matters.push({ id: created.body.matter.id, assetId: created.body.matter.assetId });
        }
        for (const c of commands) {
          const m = matters[c.matter % matters.length];
          const { door, body } = COMMANDS[c.name];
          const gigId = (await call(app, 'GET', `${ws}/matters/${m.id}`)).body.matter.pendingGigId ?? null;
          const answer = await call(app, 'POST', `${ws}/${door(m)}`, body(gigId, c.days));
          // Any answer but a failure: refusals are part of the walk, and write nothing.
          expect(answer.status, answer.raw).toBeLessThan(500);
        }
        await expectFolded(ws, 'matter');
        await expectFolded(ws, 'deadline-ladder');
      }),
      {
        numRuns: 25,
        // One walk that surely reaches every state the check below names, whatever the random runs reach.
        examples: [[
          [
            { matterType: 'patent_provisional', client: FIXTURE.fulfillingClient, consumerPattern: 'B2A', title: 'A map' },
            { matterType: 'patent_provisional', client: FIXTURE.decliningClient, consumerPattern: 'B2A', title: 'A map' },
            { matterType: 'patent_provisional', client: undefined, consumerPattern: 'B2A', title: 'A map' },
            { matterType: 'patent_maintenance', client: undefined, consumerPattern: 'B2A', title: `${FIXTURE.noticeEvePrefix} A map` },
            { matterType: 'trademark_office_action', client: undefined, consumerPattern: 'B2A2D', title: 'A map' },
          ],
          [
            ...[0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3].map((matter) => ({ matter, name: 'advance', days: 1 })),
            { matter: 3, name: 'tick', days: 1 },
          ],
        ]],
      },
    );
    // The walks reached the waiting states, a terminal, a ladder past its notice rung, at its terminal rung, vacant and recurring.
    for (const key of ['matter open.waiting_on_signer', 'matter open.needs_client_direction', 'matter fulfilled', 'matter open.intake', 'deadline-ladder open.counting', 'deadline-ladder facet notice', 'deadline-ladder facet vacant', 'deadline-ladder facet recurring', 'deadline-ladder transitions', 'matter transitions']) {
      expect([...reached], key).toContain(key);
    }
  }, 240_000);
});
