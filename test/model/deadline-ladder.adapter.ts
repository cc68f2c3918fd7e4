/**
 * The Deadline Ladder machine's model adapter: each machine event goes
 * through its own door (`/deadlines/{assetId}/tick|ack|monitor|satisfy|resolve`),
 * and after every step `GET /deadlines/{assetId}` and the grain's tail must
 * show exactly what the machine's snapshot and emitted facts say.
 *
 * Ladders open only as Matters mint their Assets, so the variants are the
 * ladders the service can open: one-shot (patent_provisional) and recurring
 * (patent_maintenance), each from the two fixture Assets (5 days, inside the
 * final week; 31 days, on the eve of the notice rung).
 */
import type { SnapshotFrom } from 'xstate';
import { ackWindow, deadlineLadderMachine, TERMINAL_OUTCOMES, type LadderEvent, type Rung } from '../../machines/deadline-ladder.ts';
import { FIXTURE } from '../../src/domain/fixtures.ts';
import { LADDER_RULES } from '../../src/domain/ladder-rules.ts';
import { call, workspace, type TestApp } from '../helpers/app.ts';
import { assertEqual, doorAnswer } from './compare.ts';
import type { ModelAdapter, Trace, Variant } from './runner.ts';

type Ladder = typeof deadlineLadderMachine;
type Snap = SnapshotFrom<Ladder>;

export interface LadderHandle {
  prefix: string;
  assetId: string;
  /** How many of the ladder's rows the checks have read off the grain's tail, and the cursor after them: each check reads only what landed since. */
  tail: { seen: number; after: number };
}

const CADENCE = LADDER_RULES.patent_maintenance.recurEveryDays!;

export const LADDER_VARIANTS: Array<Variant<Ladder> & { matterType: string; title: string }> = [
  { name: 'one-shot/ack-due', input: { assetId: 'model', daysUntilDeadline: 5, recurEveryDays: null }, matterType: 'patent_provisional', title: `${FIXTURE.ackDuePrefix} model widget` },
  { name: 'one-shot/notice-eve', input: { assetId: 'model', daysUntilDeadline: 31, recurEveryDays: null }, matterType: 'patent_provisional', title: `${FIXTURE.noticeEvePrefix} model widget` },
  { name: 'recurring/ack-due', input: { assetId: 'model', daysUntilDeadline: 5, recurEveryDays: CADENCE }, matterType: 'patent_maintenance', title: `${FIXTURE.ackDuePrefix} model patent` },
  { name: 'recurring/notice-eve', input: { assetId: 'model', daysUntilDeadline: 31, recurEveryDays: CADENCE }, matterType: 'patent_maintenance', title: `${FIXTURE.noticeEvePrefix} model patent` },
];

export const stateOf = (s: Snap): string => (typeof s.value === 'string' ? s.value : (s.value as { open: string }).open);

/**
 * Every door's event from a snapshot, legal and illegal, with bounded payloads.
 * Ticks land on the days where something happens: the notice rung (30), the
 * first day of the ack window (7), each day inside it, the terminal rung (0),
 * and one day past it (refused). Evidence is offered only within 31 days of
 * the deadline, so a recurring ladder rolls forward once and the graph stays finite.
 */
export function ladderEvents(s: Snap): LadderEvent[] {
  const d = s.context.days;
  const ticks = new Set([d, d + 1]);
  if (d > 30) ticks.add(d - 30);
  if (d > 7) ticks.add(d - 7);
  if (d <= 7 || d === 31) ticks.add(1);
  const events: LadderEvent[] = [...ticks].filter((n) => n >= 1).sort((a, b) => a - b).map((days) => ({ type: 'TICK', days }));
  events.push(
    { type: 'ACK', actor: 'Dana Reviewer' },
    { type: 'ACK', actor: '   ' },
    { type: 'MONITOR', signerId: s.context.owner === 'platform' ? FIXTURE.eligibleSigner : 'platform' },
    { type: 'MONITOR', signerId: '' },
    ...(d <= 31 ? [{ type: 'SATISFY' as const, evidenceRef: 'uspto-receipt-model' }] : []),
    { type: 'SATISFY', evidenceRef: ' ' },
    { type: 'RESOLVE', outcome: 'clientNotice' },
    { type: 'RESOLVE', outcome: 'outsideCounselHandoff' },
    { type: 'RESOLVE', outcome: 'settleQuietly' as never },
  );
  return events;
}

/**
 * What decides the events offered and where they lead: the state, the exact
 * day, today's ack, the owner, and the closure. Which occurrence is open and
 * what was satisfied before do not (they are checked, not keyed).
 */
export function ladderKey(s: Snap): string {
  const c = s.context;
  return JSON.stringify([s.value, c.days, c.ackedToday, c.owner, c.recurEveryDays !== null, c.resolution?.kind ?? null]);
}

/**
 * The leaner event set the simple-path run walks: every simple path of the full
 * set would number in the millions (each day of the ack window, acked or not,
 * times every hand-over of monitoring). Here monitoring is only named when
 * vacant, inside the ack window only its first day is stepped through one day
 * at a time, and evidence arrives on the eve of the notice rung or at the
 * terminal rung; every kind of transition stays reachable.
 */
export function leanLadderEvents(s: Snap): LadderEvent[] {
  const d = s.context.days;
  return ladderEvents(s).filter((e) => {
    if (e.type === 'TICK') return e.days !== 1 || d === 7 || d === 31 || d === 1;
    if (e.type === 'MONITOR') return e.signerId === '' || s.context.owner === null;
    if (e.type === 'RESOLVE') return e.outcome !== 'outsideCounselHandoff';
    if (e.type === 'SATISFY') return e.evidenceRef.trim() === '' || d === 0 || d === 31;
    return true;
  });
}

async function send(app: TestApp, handle: LadderHandle, event: LadderEvent) {
  // Each event has its own door, named after it, and the event's fields are the door's body.
  const { type, ...body } = event;
  const res = await call(app, 'POST', `${handle.prefix}/deadlines/${handle.assetId}/${type.toLowerCase()}`, body);
  const answer = doorAnswer(res);
  if (!answer.accepted && ![409, 422].includes(res.status)) throw new Error(`a ladder door refuses with 409 or 422, got ${res.status} ${res.raw}`);
  return answer;
}

/** The ladder view the spec describes, computed from the machine's snapshot alone. */
export function expectedView(s: Snap) {
  const c = s.context;
  const resolved = stateOf(s) === 'resolved';
  const current = resolved
    ? c.resolution?.kind === 'terminal_rung'
      ? [{ occurrence: c.resolution.occurrence, kind: 'resolved', outcome: c.resolution.outcome, evidenceRef: null }]
      : []
    : [{ occurrence: c.occurrence, kind: 'open', evidenceRef: null, daysUntilDeadline: c.days }];
  return {
    status: resolved ? 'resolved' : 'open',
    daysUntilDeadline: c.days,
    alarm: c.owner === null ? 'vacant' : 'nominal',
    vacant: c.owner === null,
    monitoring: { assetId: '(asset)', signerId: c.owner },
    ackRequiredToday: !resolved && ackWindow(c.days) && !c.ackedToday,
    terminalOutcomes: [...TERMINAL_OUTCOMES],
    occurrences: [...c.satisfied, ...current],
    acks: c.acks,
    resolution: c.resolution,
    recurEveryDays: c.recurEveryDays ?? undefined,
    nextOccurrenceInDays: c.recurEveryDays === null ? undefined : resolved ? null : c.days + c.recurEveryDays,
  };
}

interface TailRow {
  kind: string;
  deliverTo: string | null;
  atDaysRemaining: number | null;
  actor: string | null;
}

/** The Asset's ladder rows on the tail, as the machine's facts predict them (each tick followed by its rungs). */
function expectedTail(trace: Trace<Ladder>): TailRow[] {
  const rows: TailRow[] = [{ kind: 'ladder.opened', deliverTo: null, atDaysRemaining: null, actor: null }];
  for (const f of trace.emitted) {
    rows.push({ kind: f.kind, deliverTo: null, atDaysRemaining: null, actor: f.actor ?? null });
    if (f.kind !== 'ladder.ticked') continue;
    for (const r of f.data.rungs as Rung[]) rows.push({ kind: `reminder.${r.rung}`, deliverTo: (f.data.owner as string | null) ?? null, atDaysRemaining: r.atDaysRemaining, actor: null });
  }
  return rows;
}

async function check(app: TestApp, handle: LadderHandle, expected: Snap, trace: Trace<Ladder>) {
  const res = await call(app, 'GET', `${handle.prefix}/deadlines/${handle.assetId}`);
  if (res.status !== 200) throw new Error(`GET /deadlines/${handle.assetId} answered ${res.status} ${res.raw}`);
  const want = expectedView(expected);
  want.monitoring.assetId = handle.assetId;
  const got = Object.fromEntries(Object.keys(want).map((k) => [k, res.body[k]]));
  assertEqual(got, want, 'ladder view');
  if (res.body.version !== 1 + trace.emitted.length + trace.emitted.reduce((n, f) => n + ((f.data.rungs as Rung[] | undefined)?.length ?? 0), 0)) {
    throw new Error(`ladder version ${res.body.version} does not count its journaled facts and reminders`);
  }
  // The tail is append-only (test/events.prop.test.ts holds it so), so the rows read by earlier checks stand: read what landed since.
  const tail = await call(app, 'GET', `${handle.prefix}/events?after=${handle.tail.after}&limit=500`);
  if (tail.status !== 200) throw new Error(`GET /events answered ${tail.status} ${tail.raw}`);
  const rows: TailRow[] = (tail.body.results as Array<{ kind: string; subject: string; deliverTo?: string; actor?: string; data: { atDaysRemaining?: number } }>)
    .filter((e) => e.subject === handle.assetId && e.kind !== 'asset.minted')
    .map((e) => ({ kind: e.kind, deliverTo: e.kind.startsWith('reminder.') ? (e.deliverTo ?? null) : null, atDaysRemaining: e.kind.startsWith('reminder.') ? (e.data.atDaysRemaining ?? null) : null, actor: e.actor ?? null }));
  // The rows read before were held to the facts before: the new ones must be the facts the machine emitted since, and no more.
  const { seen } = handle.tail;
  assertEqual(rows, expectedTail(trace).slice(seen), `ladder facts on the tail after its first ${seen}`);
  handle.tail = { seen: seen + rows.length, after: tail.body.nextAfter };
}

export const ladderAdapter: ModelAdapter<Ladder, LadderHandle> = {
  name: 'deadline-ladder',
  machine: deadlineLadderMachine,
  variants: LADDER_VARIANTS.map(({ name, input }) => ({ name, input })),
  events: ladderEvents,
  serializeState: ladderKey,
  async open(app, variant) {
    const spec = LADDER_VARIANTS.find((v) => v.name === variant.name)!;
    const prefix = await workspace(app);
    const res = await call(app, 'POST', `${prefix}/matters`, { matterType: spec.matterType, asset: { title: spec.title } });
    if (res.status !== 201) throw new Error(`POST /matters answered ${res.status} ${res.raw}`);
    return { prefix, assetId: res.body.matter.assetId, tail: { seen: 0, after: 0 } };
  },
  send: (app, handle, event) => send(app, handle, event),
  check,
};

/** The same adapter over the lean event set, for the simple-path run. */
export const leanLadderAdapter: ModelAdapter<Ladder, LadderHandle> = { ...ladderAdapter, events: leanLadderEvents };
