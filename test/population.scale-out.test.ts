/**
 * Where Matters gather, across processes (issue 36): two real service
 * processes on one PostgreSQL journal (test/helpers/processes.ts) count the
 * same population, and it is the one the journal folds to (the rows of the
 * database, folded by test/helpers/population.ts), after both wrote to one
 * grain at once: commands to the same Matters from both sides (each
 * conflict decided again), ladders ticked, Signers answering. And a rebuild
 * one process runs while the other keeps writing to the grain lands counts
 * that agree with the journal too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { eventOf, type EventRow } from '../src/journal/rows.ts';
import { foldGathered, gatheredOf } from './helpers/population.ts';
import { send, ServicePair, type ProcessName } from './helpers/processes.ts';

/** A hang guard: a pair starts in about a second on a quiet machine, ten or more when other work takes both cores. */
const PAIR_TEST_MS = 120_000;

let pair: ServicePair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

/** The grain's events as the database holds them: the ground truth. */
async function journalOf(p: ServicePair, grain: string) {
  const rows = await p.query<{ grain: string; seq: string; stream: string; version: number; at: string; kind: string; actor: string | null; body: string }>('SELECT grain, seq, stream, version, at, kind, actor, body FROM events WHERE grain = $1 ORDER BY seq', [grain]);
  return rows.map((r) => eventOf([r.grain, r.seq, r.stream, r.version, r.at, r.kind, r.actor, r.body] as EventRow));
}

/** Both processes' population of the grain, each equal to the fold of the journal. */
async function expectAgreed(p: ServicePair, ws: string, grain: string, what: string) {
  const events = await journalOf(p, grain);
  for (const [kind, collection] of [['matter', 'matters'], ['deadline-ladder', 'deadlines']] as const) {
    const folded = foldGathered(events, kind);
    expect(folded.total, `${what}: ${kind}s in the journal`).toBeGreaterThan(0);
    for (const name of ['a', 'b'] as const) {
      const answer = await send(p.url(name), 'GET', `${ws}/inspection/${collection}`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(gatheredOf(answer.body), `${what}: ${kind}s as ${name} counts them`).toEqual(folded);
    }
  }
}

const attestation = { signedBy: FIXTURE.eligibleSigner, credentialRef: 'uspto-reg:70001', artifactHash: `sha256:${'b'.repeat(64)}` };

/** One side's share of the writes: advances (answered by a fixture Signer for some), a Signer's answer to any pending Gig, ticks. */
async function writes(p: ServicePair, on: ProcessName, ws: string, matters: Array<{ id: string; assetId: string }>, rounds: number) {
  for (let i = 0; i < rounds; i++) {
    const m = matters[(i * 3 + (on === 'a' ? 0 : 1)) % matters.length];
    const base = p.url(on);
    const advanced = await send(base, 'POST', `${ws}/matters/${m.id}/advance`, {});
    expect(advanced.status, JSON.stringify(advanced.body)).toBeLessThan(500);
    const gigId = advanced.body?.matter?.pendingGigId;
    if (gigId && i % 2 === 0) expect((await send(base, 'POST', `${ws}/matters/${m.id}/gig-result`, { gigId, outcome: i % 4 === 0 ? 'attested' : 'send_back', ...(i % 4 === 0 ? { attestation } : { memo: 'again' }) })).status).toBeLessThan(500);
    expect((await send(base, 'POST', `${ws}/deadlines/${m.assetId}/tick`, { days: 7 })).status).toBeLessThan(500);
  }
}

describe('two service processes on one PostgreSQL journal', () => {
  it('count the same population of a grain both write to at once, the one its journal folds to', async () => {
    pair = await ServicePair.start();
    const opened = await send(pair.a.url, 'POST', '/workspaces');
    const grain = opened.body.workspace.id as string;
    const ws = `/workspaces/${grain}`;
    const matters: Array<{ id: string; assetId: string }> = [];
    for (let i = 0; i < 6; i++) {
      const created = await send(pair.url(i % 2 ? 'a' : 'b'), 'POST', `${ws}/matters`, { matterType: i % 3 ? 'patent_provisional' : 'patent_maintenance', asset: { title: `${FIXTURE.noticeEvePrefix} map ${i}` } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      matters.push({ id: created.body.matter.id, assetId: created.body.matter.assetId });
    }
    // Both counted before the writes: each has checked (and keeps) the grain's rows.
    await expectAgreed(pair, ws, grain, 'before the writes');
    await Promise.all([writes(pair, 'a', ws, matters, 12), writes(pair, 'b', ws, matters, 12)]);
    await expectAgreed(pair, ws, grain, 'after both wrote at once');

    // The counts lost: A rebuilds them while B keeps writing to the grain; what lands agrees with the journal.
    await pair.query('DELETE FROM population_ledger WHERE grain = $1', [grain]);
    const [rebuilt] = await Promise.all([send(pair.a.url, 'GET', `${ws}/inspection/matters`), writes(pair, 'b', ws, matters, 8)]);
    expect(rebuilt.status, JSON.stringify(rebuilt.body)).toBe(200);
    await expectAgreed(pair, ws, grain, 'after a rebuild on A beside writes on B');
  }, PAIR_TEST_MS);
});
