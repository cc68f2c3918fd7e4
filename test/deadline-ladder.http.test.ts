/**
 * Every door of the spec's "Deadlines" table through the real app, with the
 * exact statuses: 404 no ladder here, 409 the ladder refuses, 422 a missing or
 * malformed field. Also: a ladder per Asset from the rules table, the two
 * fixture Assets, isolation between grains, the top-level surface, and a
 * restart that rebuilds every ladder from the journal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { LADDER_RULES } from '../src/domain/ladder-rules.ts';
import { MATTER_TYPES } from '../src/domain/matter-types.ts';
import { acrossRestarts, call, testApp, topLevelHeaders, workspace, type TestApp } from './helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await testApp({ creationBound: { limit: 1_000_000 } });
});
afterAll(async () => {
  await app.close();
});

/** A fresh workspace with one Matter; returns its prefix and the Asset id. */
async function ladder(matterType: string = 'patent_provisional', title?: string) {
  const prefix = await workspace(app);
  const res = await call(app, 'POST', `${prefix}/matters`, { matterType, ...(title ? { asset: { title } } : {}) });
  expect(res.status).toBe(201);
  const assetId = res.body.matter.assetId as string;
  return { prefix, assetId, url: `${prefix}/deadlines/${assetId}` };
}

const ACK_DUE = `${FIXTURE.ackDuePrefix} widget`;
const NOTICE_EVE = `${FIXTURE.noticeEvePrefix} widget`;

describe('a ladder per Asset', () => {
  it('opens with the length and cadence of the rules table, vacant, in the Matter\'s own transaction', async () => {
    for (const matterType of MATTER_TYPES) {
      const { prefix, url, assetId } = await ladder(matterType);
      const view = await call(app, 'GET', url);
      expect(view.status, matterType).toBe(200);
      const rule = LADDER_RULES[matterType];
      expect(view.body).toMatchObject({ type: 'OK', assetId, obligation: rule.obligation, status: 'open', daysUntilDeadline: rule.daysUntilDeadline, alarm: 'vacant', vacant: true, monitoring: { assetId, signerId: null }, ackRequiredToday: false, acks: [], resolution: null });
      expect(view.body.terminalOutcomes).toEqual(['clientNotice', 'extensionPurchase', 'proSeHandoff', 'outsideCounselHandoff']);
      if (rule.recurEveryDays === null) expect(view.body).not.toHaveProperty('recurEveryDays');
      else expect(view.body).toMatchObject({ recurEveryDays: rule.recurEveryDays, nextOccurrenceInDays: rule.daysUntilDeadline + rule.recurEveryDays });
      // matter.opened, asset.minted and ladder.opened are one append: consecutive seqs.
      const tail = await call(app, 'GET', `${prefix}/events`);
      expect(tail.body.results.map((e: { kind: string }) => e.kind)).toEqual(['workspace.opened', 'matter.opened', 'asset.minted', 'ladder.opened']);
    }
  });

  it('ack-due: inside the final week, the daily-ack rung live from the first read', async () => {
    const { url } = await ladder('patent_utility', ACK_DUE);
    const view = await call(app, 'GET', url);
    expect(view.body).toMatchObject({ daysUntilDeadline: 5, ackRequiredToday: true, rung: 'daily_ack', fixture: 'ack-due' });
  });

  it('notice-eve: one day above the notice rung; the first tick fires reminder.notice onto the tail', async () => {
    const { prefix, url, assetId } = await ladder('patent_maintenance', NOTICE_EVE);
    expect((await call(app, 'GET', url)).body.daysUntilDeadline).toBe(31);
    const tick = await call(app, 'POST', `${url}/tick`, { days: 1 });
    expect(tick.status).toBe(200);
    expect(tick.body).toMatchObject({ daysUntilDeadline: 30, alarm: 'vacant', events: [{ rung: 'notice', atDaysRemaining: 30 }] });
    const reminders = await call(app, 'GET', `${prefix}/events?feed=reminders`);
    expect(reminders.body.results).toHaveLength(1);
    expect(reminders.body.results[0]).toMatchObject({ kind: 'reminder.notice', subject: assetId, data: { atDaysRemaining: 30, alarm: 'vacant' } });
    expect(reminders.body.results[0]).not.toHaveProperty('deliverTo');
  });
});

describe('GET /deadlines/{assetId}', () => {
  it('is 404 for an unknown Asset, for an Asset of another grain, and for a Matter id', async () => {
    const { prefix, assetId } = await ladder();
    const other = await workspace(app);
    expect((await call(app, 'GET', `${prefix}/deadlines/as_0000000000000000000000000`)).status).toBe(404);
    const elsewhere = await call(app, 'GET', `${other}/deadlines/${assetId}`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).toMatchObject({ code: 'LADDER_NOT_FOUND' });
    expect(typeof elsewhere.body.error).toBe('string');
    expect((await call(app, 'GET', `/deadlines/${assetId}`)).status).toBe(404);
    for (const door of ['tick', 'ack', 'monitor', 'satisfy', 'resolve']) {
      const body = { tick: { days: 1 }, ack: { actor: 'Dana' }, monitor: { signerId: 'platform' }, satisfy: { evidenceRef: 'r' }, resolve: { outcome: 'clientNotice' } }[door];
      expect((await call(app, 'POST', `${other}/deadlines/${assetId}/${door}`, body)).status, door).toBe(404);
    }
  });
});

describe('POST /deadlines/{assetId}/tick', () => {
  it('answers {daysUntilDeadline, alarm, events[{rung, atDaysRemaining}]}', async () => {
    const { url } = await ladder('contract_review');
    const res = await call(app, 'POST', `${url}/tick`, { days: 40 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: 'OK',
      daysUntilDeadline: 5,
      alarm: 'vacant',
      ackRequiredToday: true,
      events: [
        { rung: 'notice', atDaysRemaining: 30, kind: 'reminder.notice' },
        { rung: 'ack_missed', atDaysRemaining: 7 },
        { rung: 'ack_missed', atDaysRemaining: 6 },
        { rung: 'ack_due', atDaysRemaining: 5 },
      ],
    });
  });

  it('is 422 for a malformed days, 409 past the deadline or at the terminal rung', async () => {
    const { url } = await ladder('patent_provisional', ACK_DUE);
    for (const body of [{}, { days: 0 }, { days: -1 }, { days: 1.5 }, { days: '2' }, { days: 1, extra: true }, { days: 100_000 }]) {
      const res = await call(app, 'POST', `${url}/tick`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(typeof res.body.error).toBe('string');
    }
    const past = await call(app, 'POST', `${url}/tick`, { days: 6 });
    expect(past.status).toBe(409);
    expect(past.body).toMatchObject({ code: 'TICK_REFUSED', daysUntilDeadline: 5 });
    expect((await call(app, 'POST', `${url}/tick`, { days: 5 })).body).toMatchObject({ daysUntilDeadline: 0, events: [{ rung: 'ack_missed', atDaysRemaining: 5 }, { rung: 'ack_missed' }, { rung: 'ack_missed' }, { rung: 'ack_missed' }, { rung: 'ack_missed', atDaysRemaining: 1 }, { rung: 'terminal', atDaysRemaining: 0 }] });
    const atZero = await call(app, 'POST', `${url}/tick`, { days: 1 });
    expect(atZero.status).toBe(409);
    expect(atZero.body.error).toMatch(/terminal rung/);
    expect((await call(app, 'GET', url)).body.daysUntilDeadline).toBe(0);
  });
});

describe('POST /deadlines/{assetId}/ack', () => {
  it('answers {acked: true, atDaysRemaining}, once a day, and lands on the time feed with its actor', async () => {
    const { prefix, url } = await ladder('patent_provisional', ACK_DUE);
    const res = await call(app, 'POST', `${url}/ack`, { actor: 'Dana Reviewer' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ type: 'OK', acked: true, atDaysRemaining: 5, actor: 'Dana Reviewer' });
    expect((await call(app, 'GET', url)).body).toMatchObject({ ackRequiredToday: false, acks: [{ actor: 'Dana Reviewer', atDaysRemaining: 5, occurrence: 1 }] });
    const again = await call(app, 'POST', `${url}/ack`, { actor: 'Dana Reviewer' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('NO_ACK_DUE');
    const time = await call(app, 'GET', `${prefix}/events?feed=time`);
    expect(time.body.results.map((e: { kind: string; actor: string }) => [e.kind, e.actor])).toEqual([['ladder.acked', 'Dana Reviewer']]);
    // The next day owes a fresh ack; the acked day is not reported missed.
    const tick = await call(app, 'POST', `${url}/tick`, { days: 1 });
    expect(tick.body.events).toEqual([expect.objectContaining({ rung: 'ack_due', atDaysRemaining: 4 })]);
    expect((await call(app, 'POST', `${url}/ack`, { actor: 'Dana Reviewer' })).status).toBe(200);
  });

  it('is 422 without a named actor and 409 when no ack is due', async () => {
    const { url } = await ladder('patent_provisional');
    for (const body of [{}, { actor: '' }, { actor: '   ' }, { actor: 7 }]) {
      expect((await call(app, 'POST', `${url}/ack`, body)).status, JSON.stringify(body)).toBe(422);
    }
    const early = await call(app, 'POST', `${url}/ack`, { actor: 'Dana' });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ code: 'NO_ACK_DUE', daysUntilDeadline: 365 });
  });
});

describe('POST /deadlines/{assetId}/monitor', () => {
  it('names the owner: {monitoring, vacant: false, alarm: nominal}; reminders are then addressed to them', async () => {
    const { prefix, url, assetId } = await ladder('trademark_office_action', NOTICE_EVE);
    const res = await call(app, 'POST', `${url}/monitor`, { signerId: FIXTURE.eligibleSigner });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ type: 'OK', monitoring: { assetId, signerId: FIXTURE.eligibleSigner }, vacant: false, alarm: 'nominal' });
    expect((await call(app, 'POST', `${url}/monitor`, { signerId: 'platform' })).body.monitoring.signerId).toBe('platform');
    await call(app, 'POST', `${url}/tick`, { days: 1 });
    const reminders = await call(app, 'GET', `${prefix}/events?feed=reminders`);
    expect(reminders.body.results[0]).toMatchObject({ kind: 'reminder.notice', deliverTo: 'platform', data: { alarm: 'nominal' } });
  });

  it('is 422 without a signerId', async () => {
    const { url } = await ladder();
    for (const body of [{}, { signerId: '' }, { signerId: 'has spaces' }, { signerId: null }]) {
      expect((await call(app, 'POST', `${url}/monitor`, body)).status, JSON.stringify(body)).toBe(422);
    }
    expect((await call(app, 'GET', url)).body.vacant).toBe(true);
  });
});

describe('POST /deadlines/{assetId}/satisfy', () => {
  it('closes a one-shot ladder forever by evidence, answering the ladder view', async () => {
    const { url } = await ladder('demand_letter');
    const res = await call(app, 'POST', `${url}/satisfy`, { evidenceRef: 'docket:2025-118' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ type: 'OK', status: 'resolved', resolution: { kind: 'satisfied', evidenceRef: 'docket:2025-118' }, occurrences: [{ kind: 'satisfied', evidenceRef: 'docket:2025-118' }] });
    const again = await call(app, 'POST', `${url}/satisfy`, { evidenceRef: 'docket:2025-119' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('LADDER_RESOLVED');
  });

  it('rolls a recurring ladder forward one cadence and never closes it', async () => {
    const { url } = await ladder('patent_maintenance', ACK_DUE);
    const cadence = LADDER_RULES.patent_maintenance.recurEveryDays!;
    const res = await call(app, 'POST', `${url}/satisfy`, { evidenceRef: 'fee-receipt-1' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'open', daysUntilDeadline: 5 + cadence, recurEveryDays: cadence, nextOccurrenceInDays: 5 + 2 * cadence, resolution: null, ackRequiredToday: false });
    expect(res.body.occurrences).toEqual([
      { occurrence: 1, kind: 'satisfied', evidenceRef: 'fee-receipt-1', atDaysRemaining: 5 },
      { occurrence: 2, kind: 'open', evidenceRef: null, daysUntilDeadline: 5 + cadence },
    ]);
    expect((await call(app, 'POST', `${url}/satisfy`, { evidenceRef: 'fee-receipt-2' })).body.occurrences).toHaveLength(3);
  });

  it('is 422 without evidence: closure is never by assertion', async () => {
    const { url } = await ladder();
    for (const body of [{}, { evidenceRef: '' }, { evidenceRef: '  ' }, { evidenceRef: ['r'] }]) {
      expect((await call(app, 'POST', `${url}/satisfy`, body)).status, JSON.stringify(body)).toBe(422);
    }
    expect((await call(app, 'GET', url)).body.status).toBe('open');
  });
});

describe('POST /deadlines/{assetId}/resolve', () => {
  it('is 409 before the terminal rung, 422 off the enum, then resolves for good', async () => {
    const { url } = await ladder('patent_maintenance', ACK_DUE);
    const early = await call(app, 'POST', `${url}/resolve`, { outcome: 'clientNotice' });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('NOT_AT_TERMINAL_RUNG');
    await call(app, 'POST', `${url}/tick`, { days: 5 });
    for (const body of [{}, { outcome: 'settled' }, { outcome: 'CLIENTNOTICE' }]) {
      expect((await call(app, 'POST', `${url}/resolve`, body)).status, JSON.stringify(body)).toBe(422);
    }
    const res = await call(app, 'POST', `${url}/resolve`, { outcome: 'extensionPurchase' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ type: 'OK', resolved: { kind: 'terminal_rung', outcome: 'extensionPurchase' }, ladder: { status: 'resolved', nextOccurrenceInDays: null } });
  });

  it('leaves a resolved ladder refusing every further write with 409', async () => {
    const { url } = await ladder('patent_provisional', ACK_DUE);
    await call(app, 'POST', `${url}/tick`, { days: 5 });
    await call(app, 'POST', `${url}/resolve`, { outcome: 'proSeHandoff' });
    const before = (await call(app, 'GET', url)).body;
    const writes: Array<[string, unknown]> = [['tick', { days: 1 }], ['ack', { actor: 'Dana' }], ['monitor', { signerId: 'platform' }], ['satisfy', { evidenceRef: 'late-receipt' }], ['resolve', { outcome: 'clientNotice' }]];
    for (const [door, body] of writes) {
      const res = await call(app, 'POST', `${url}/${door}`, body);
      expect(res.status, door).toBe(409);
      expect(res.body.code).toBe('LADDER_RESOLVED');
    }
    expect((await call(app, 'GET', url)).body).toEqual(before);
  });
});

describe('the top-level surface', () => {
  it('serves the same doors at the top level; writes there need a key, and a fixture title is an ordinary title', async () => {
    const headers = await topLevelHeaders(app);
    const created = await call(app, 'POST', '/matters', { matterType: 'entity_formation', asset: { title: ACK_DUE } }, headers);
    expect(created.status).toBe(201);
    const url = `/deadlines/${created.body.matter.assetId}`;
    const ladder = (await call(app, 'GET', url)).body;
    expect(ladder).toMatchObject({ daysUntilDeadline: LADDER_RULES.entity_formation.daysUntilDeadline, ackRequiredToday: false });
    expect(ladder.fixture).toBeUndefined();
    expect((await call(app, 'POST', `${url}/tick`, { days: ladder.daysUntilDeadline - 5 })).status).toBe(401);
    expect((await call(app, 'POST', `${url}/tick`, { days: ladder.daysUntilDeadline - 5 }, headers)).status).toBe(200);
    expect((await call(app, 'POST', `${url}/ack`, { actor: 'Dana' }, headers)).status).toBe(200);
  });
});

describe('durability', () => {
  it('rebuilds every ladder from the journal after a restart, reminders folded once', async () => {
    await acrossRestarts(async (start) => {
      const first = await start();
      const prefix = await workspace(first);
      const created = await call(first, 'POST', `${prefix}/matters`, { matterType: 'patent_maintenance', asset: { title: NOTICE_EVE } });
      const url = `${prefix}/deadlines/${created.body.matter.assetId}`;
      await call(first, 'POST', `${url}/monitor`, { signerId: 'platform' });
      await call(first, 'POST', `${url}/tick`, { days: 25 });
      await call(first, 'POST', `${url}/ack`, { actor: 'Dana' });
      await call(first, 'POST', `${url}/tick`, { days: 6 });
      await call(first, 'POST', `${url}/satisfy`, { evidenceRef: 'fee-1' });
      const before = (await call(first, 'GET', url)).body;
      await first.close();
      const second = await start();
      const after = (await call(second, 'GET', url)).body;
      expect(after).toEqual(before);
      expect(after).toMatchObject({ daysUntilDeadline: LADDER_RULES.patent_maintenance.recurEveryDays, occurrences: [{ kind: 'satisfied', evidenceRef: 'fee-1', atDaysRemaining: 0 }, { kind: 'open' }] });
      await second.close();
    });
  });
});

describe('the Asset carries its ladder', () => {
  it('shows the ladder view on the Asset of GET /matters/{id} and GET /assets/{id}', async () => {
    const { prefix, url, assetId } = await ladder('patent_maintenance', ACK_DUE);
    await call(app, 'POST', `${url}/ack`, { actor: 'Dana' });
    const view = (await call(app, 'GET', url)).body;
    const { type: _type, provenance: _provenance, ...ladderView } = view;
    const matterId = view.matterId as string;
    expect((await call(app, 'GET', `${prefix}/matters/${matterId}`)).body.asset.deadlineLadder).toEqual(ladderView);
    expect((await call(app, 'GET', `${prefix}/assets/${assetId}`)).body.asset.deadlineLadder).toEqual(ladderView);
  });
});
