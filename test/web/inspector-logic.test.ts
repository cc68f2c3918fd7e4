/**
 * The inspector page's logic without a browser (`src/web/browser/`): the
 * timeline's paging and keys, what a path marks on the diagram, how an
 * inspection is read out, and how the page follows the head (the event
 * stream, or polling when the stream closes for good), with the browser's
 * EventSource and timers replaced by recording fakes. The page itself, drawn
 * in a real browser, is test/browser.inspector.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { SSE_EVENT_NAME } from '../../src/domain/sse-wire.ts';
import type { Inspection, InspectionStep } from '../../src/web/browser/contract.ts';
import { follow, oneAtATime, POLL_MS, type StreamSource } from '../../src/web/browser/follow.ts';
import { arrivalWords, askedSeq, asOfWords, factRows, inspectionCaption, inspectionLinks, KeptViews, provenanceText, timeOf } from '../../src/web/browser/inspection-view.ts';
import { ancestorsOf, besideLabel, pathMarks, startScopes, stepsLabel } from '../../src/web/browser/path-marks.ts';
import { keyTarget, pageCount, pageOfSeq, TIMELINE_PAGE, timelinePage } from '../../src/web/browser/timeline.ts';

const W = '/workspaces/ws_4cm32orgclq70n9bhw39ec2c0';
const M = `${W}/matters/mt_csh6rgtvt8jrzojsgbtsqr4sj`;

/** A fact of a path: the fields the page reads, the rest as a Matter's facts carry them. */
const step = (s: Partial<InspectionStep> & Pick<InspectionStep, 'step' | 'seq' | 'kind' | 'from' | 'to' | 'event' | 'transitions'>): InspectionStep =>
  ({ version: s.step, at: '2026-11-26T09:00:00.000Z', by: 'gate', actor: null, note: '', gigId: null, signer: null, data: {}, ...s }) as InspectionStep;

/** A Matter's inspection as its door answered it, waiting on its Signer after four advances (the shape of a real answer). */
const WAITING: Inspection = {
  subject: { kind: 'matter', id: 'mt_csh6rgtvt8jrzojsgbtsqr4sj', links: { self: `${M}/inspection`, page: `${M}/inspect`, entity: M, stream: `${W}/events/stream` } },
  machine: { id: 'matter', version: 1, diagram: '/docs/diagrams/matter.svg' },
  at: { seq: 8, version: 5, latest: true },
  head: { seq: 8, version: 5 },
  state: { path: 'open.waiting_on_signer', status: 'waiting_on_signer', final: false, tags: ['awaiting-signer'] },
  path: [
    step({ step: 1, seq: 2, kind: 'matter.opened', from: null, to: 'open.intake', event: 'xstate.init', transitions: [] }),
    step({ step: 2, seq: 5, kind: 'stage', verb: 'prepare', from: 'open.intake', to: 'open.prepare', event: 'ADVANCE', transitions: ['open.intake ADVANCE [consentSatisfied] -> open.prepare'] }),
    step({ step: 3, seq: 6, kind: 'stage', verb: 'examine', from: 'open.prepare', to: 'open.examine', event: 'ADVANCE', transitions: ['open.prepare ADVANCE -> open.examine'] }),
    step({ step: 4, seq: 7, kind: 'stage', verb: 'review', from: 'open.examine', to: 'open.review', event: 'ADVANCE', transitions: ['open.examine ADVANCE -> open.review'] }),
    step({ step: 5, seq: 8, kind: 'gig.posted', from: 'open.review', to: 'open.waiting_on_signer', event: 'ESCALATE', transitions: ['open.review ESCALATE -> open.waiting_on_signer'], gigId: 'gig_1', provenance: { proposedBy: 'agent' } }),
  ],
  open: [
    { command: 'consent', method: 'POST', door: '/matters/{id}/consent', href: `${M}/consent`, sends: ['CONSENT'], transitions: ['open CONSENT -> (stays)'] },
    { command: 'gig-result.attested', method: 'POST', door: '/matters/{id}/gig-result', href: `${M}/gig-result`, sends: ['GIG_ATTESTED'], transitions: ['open.waiting_on_signer GIG_ATTESTED [pendingActIsSign] -> open.sign'] },
  ],
  refused: [
    { command: 'advance', method: 'POST', door: '/matters/{id}/advance', href: `${M}/advance`, status: 409, code: 'AWAITING_SIGNER', error: 'it waits on its Signer', transitions: [] },
    { command: 'terminal.withdrawn', method: 'POST', door: '/matters/{id}/terminal', href: `${M}/terminal`, status: 409, code: 'STATE_REFUSES', error: 'refused', transitions: ['open.waiting_on_signer WITHDRAW -> (refuses)'] },
  ],
  matter: { assetId: 'as_79xg5uqwh2ml8c1anzxvwa0jw' } as Inspection['matter'],
};

describe('the timeline, a page at a time', () => {
  const steps = Array.from({ length: 2 * TIMELINE_PAGE + 7 }, (_, i) => ({ seq: 10 + 2 * i }));

  it('pages the facts, oldest first, and says which it shows', () => {
    expect(pageCount(0)).toBe(1);
    expect(pageCount(TIMELINE_PAGE)).toBe(1);
    expect(pageCount(steps.length)).toBe(3);
    expect(timelinePage(steps, 1)).toMatchObject({ page: 1, info: `facts ${TIMELINE_PAGE + 1}–${2 * TIMELINE_PAGE} of ${steps.length}`, first: false, last: false });
    expect(timelinePage(steps, 2).shown).toEqual(steps.slice(2 * TIMELINE_PAGE));
    // Asked past either end: the nearest page.
    expect(timelinePage(steps, 9)).toMatchObject({ page: 2, info: `facts ${2 * TIMELINE_PAGE + 1}–${steps.length} of ${steps.length}`, last: true });
    expect(timelinePage(steps, -3)).toMatchObject({ page: 0, first: true });
    expect(timelinePage([], 0)).toEqual({ page: 0, shown: [], info: 'no facts', first: true, last: true });
  });

  it('finds the page of a fact, and the last page for a fact it does not hold', () => {
    expect(pageOfSeq(steps, 10)).toBe(0);
    expect(pageOfSeq(steps, steps[TIMELINE_PAGE].seq)).toBe(1);
    expect(pageOfSeq(steps, 11)).toBe(2);
    expect(pageOfSeq(steps, null)).toBe(2);
    expect(pageOfSeq([], 4)).toBe(0);
  });

  it('moves the choice by key, one fact, a page or to an end, never past one; other keys do not move it', () => {
    const n = steps.length;
    expect(['ArrowDown', 'ArrowRight', 'ArrowUp', 'ArrowLeft', 'PageDown', 'PageUp', 'Home', 'End'].map((key) => keyTarget(key, 55, n))).toEqual([56, 56, 54, 54, 55 + TIMELINE_PAGE, 55 - TIMELINE_PAGE, 0, n - 1]);
    expect(keyTarget('ArrowUp', 0, n)).toBe(0);
    expect(keyTarget('PageDown', n - 3, n)).toBe(n - 1);
    expect(keyTarget('Enter', 5, n)).toBeUndefined();
    expect(keyTarget('toString', 5, n)).toBeUndefined();
  });
});

describe('what a path marks on the diagram', () => {
  it('marks the opening by its start arrows, each later fact by the edges it took, and the doors open and refused now', () => {
    const marks = pathMarks(WAITING);
    expect(marks.steps).toEqual([
      { step: 1, starts: ['', 'open'] },
      ...WAITING.path.slice(1).map((s) => ({ step: s.step, edges: s.transitions })),
    ]);
    expect([...marks.visited]).toEqual(['open.intake', 'open.prepare', 'open.examine', 'open.review', 'open.waiting_on_signer']);
    expect([...marks.open]).toEqual(['open CONSENT -> (stays)', 'open.waiting_on_signer GIG_ATTESTED [pendingActIsSign] -> open.sign']);
    expect([...marks.refused]).toEqual(['open.waiting_on_signer WITHDRAW -> (refuses)']);
  });

  it('numbers the state a fact without an edge of its own left the record in (a reminder beside a tick)', () => {
    const reminder = step({ step: 2, seq: 3, kind: 'reminder.notice', from: 'open.watching', to: 'open.watching', event: null, transitions: [] });
    expect(pathMarks({ path: [reminder], open: [], refused: [] }).steps).toEqual([{ step: 2, state: 'open.watching' }]);
  });

  it('names the scopes a state starts in and the compounds it sits in, outermost first', () => {
    expect(startScopes('fulfilled')).toEqual(['']);
    expect(startScopes('open.review.drafting')).toEqual(['', 'open', 'open.review']);
    expect(ancestorsOf('fulfilled')).toEqual([]);
    expect(ancestorsOf('open.review.drafting')).toEqual(['open', 'open.review']);
  });

  it('labels the steps one element took in a few words however many there are', () => {
    expect(stepsLabel([4])).toBe('4');
    expect(stepsLabel([2, 5, 9])).toBe('2, 5, 9');
    expect(stepsLabel(Array.from({ length: 300 }, (_, i) => i + 2))).toBe('2, 3 … 301 (300×)');
  });

  it('puts a badge beside an edge\'s middle, on the side away from its label', () => {
    expect(besideLabel(100, null, 20)).toBe(100);
    expect(besideLabel(100, { x1: 110, x2: 190 }, 20)).toBe(87);
    expect(besideLabel(100, { x1: 10, x2: 90 }, 20)).toBe(113);
  });
});

describe('an inspection read out', () => {
  it('says where the record stands, as of now or of a fact', () => {
    expect(inspectionCaption('Matter', WAITING)).toBe('Matter diagram: now in waiting_on_signer (open.waiting_on_signer); 5 steps numbered on its path; open: consent, gig-result.attested; 2 commands refused.');
    const past: Inspection = { ...WAITING, at: { seq: 2, version: 1, latest: false }, path: WAITING.path.slice(0, 1), open: [], state: { ...WAITING.state, path: 'open.intake', status: 'intake' } };
    expect(inspectionCaption('Matter', past)).toBe('Matter diagram: as of fact #2 in intake (open.intake); 1 step numbered on its path; no door open; 2 commands refused.');
    expect(asOfWords(WAITING, WAITING.head)).toBe('the head (fact #8, version 5)');
    expect(asOfWords(past, WAITING.head)).toBe('fact #2 (version 1 of 5)');
  });

  it('details a fact with what it carries, and leaves out what it does not', () => {
    expect(factRows(WAITING.path[4])).toEqual([
      ['step', '5 · ESCALATE → open.waiting_on_signer'],
      ['by', 'gate'],
      ['Gig', 'gig_1'],
      ['provenance', 'proposedBy: agent'],
    ]);
    expect(provenanceText({})).toBe('');
    expect(provenanceText({ actor: 'Ada', mandate: { scope: 'x' } })).toBe('actor: Ada; mandate: {"scope":"x"}');
    expect(timeOf('2026-11-26T09:00:00.123Z')).toBe('2026-11-26 09:00:00Z');
    expect(timeOf(null)).toBe('');
  });

  it('links the record\'s other doors, a Matter\'s Deadline Ladder among them, never the page itself nor its stream', () => {
    expect(inspectionLinks(WAITING)).toEqual([
      { name: 'self', href: `${M}/inspection`, words: 'inspection (JSON)' },
      { name: 'entity', href: M, words: 'JSON' },
      { name: 'ladder', href: `${W}/deadlines/as_79xg5uqwh2ml8c1anzxvwa0jw/inspect`, words: 'its Deadline Ladder' },
    ]);
  });

  it('takes an address\'s ?at= for a fact before the head only', () => {
    expect(askedSeq(null, 8)).toBeNull();
    expect(askedSeq('5', 8)).toBe(5);
    expect(askedSeq('8', 8)).toBeNull();
    expect(askedSeq('99', 8)).toBeNull();
    for (const at of ['', '-1', '2.5', '3e1', ' 4', '0x4']) expect(askedSeq(at, 8), at).toBeNull();
  });

  it('says what arrived, and where the reader still stands when they view a past fact', () => {
    const added = WAITING.path.slice(3);
    expect(arrivalWords(added, WAITING, null)).toBe('2 new facts: stage, gig.posted; now waiting_on_signer.');
    expect(arrivalWords(added.slice(1), WAITING, 5)).toBe('1 new fact arrived; you are viewing fact #5.');
  });

  it('keeps the views most recently used, as many as it may', () => {
    const views = new KeptViews<string>(2);
    views.set(1, 'one');
    views.set(2, 'two');
    expect(views.get(1)).toBe('one');
    views.set(3, 'three');
    // 2 was used least recently: it goes.
    expect([views.get(2), views.get(1), views.get(3), views.size]).toEqual([undefined, 'one', 'three', 2]);
  });
});

/** An event stream the test drives: it records its path and its listeners, and is closed for good when told. */
class FakeStream implements StreamSource {
  static readonly CLOSED = 2;
  readyState = 0;
  closed = false;
  readonly listeners = new Map<string, Array<(event: { data?: unknown }) => void>>();
  constructor(readonly path: string) {}
  addEventListener(type: string, listener: (event: { data?: unknown }) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  close(): void {
    this.closed = true;
  }
  fire(type: string, data?: unknown): void {
    for (const listener of this.listeners.get(type) ?? []) listener({ data });
  }
}

/** Follows `links.stream` (or none) with fakes, recording what the page would say and do. */
function following(stream: string | undefined, withStreams = true) {
  const said: string[] = [];
  const timers: number[] = [];
  const opened: FakeStream[] = [];
  let moved = 0;
  follow(
    { subject: WAITING.subject.id, stream, after: 8, base: `http://127.0.0.1:3000${M}/inspect?at=3` },
    {
      streams: withStreams ? { open: (path) => opened[opened.push(new FakeStream(path)) - 1], closed: FakeStream.CLOSED } : undefined,
      every: (ms) => void timers.push(ms),
    },
    { streaming: (path) => void said.push(`stream ${path}`), polling: (reason) => void said.push(`poll: ${reason}`), moved: () => void moved++ },
  );
  return { said, timers, opened, moved: () => moved };
}

describe('following the head', () => {
  it('follows the grain\'s event stream after the head, and reads the head again on its record\'s events only', () => {
    const f = following(WAITING.subject.links.stream);
    expect(f.opened.map((s) => s.path)).toEqual([`${W}/events/stream?after=8`]);
    const [source] = f.opened;
    source.fire('open');
    expect(f.said).toEqual([`stream ${W}/events/stream`]);
    source.fire(SSE_EVENT_NAME, JSON.stringify({ seq: 9, subject: WAITING.subject.id }));
    source.fire(SSE_EVENT_NAME, JSON.stringify({ seq: 10, subject: 'mt_another' }));
    source.fire(SSE_EVENT_NAME, 'not json');
    expect(f.moved()).toBe(1);
    // A reconnect (the stream not closed for good) is the browser's to make: the page keeps following.
    source.fire('error');
    expect([f.timers, source.closed]).toEqual([[], false]);
  });

  it('polls every few seconds, and says why, when the stream closes for good, before opening or after', () => {
    const refused = following(WAITING.subject.links.stream);
    refused.opened[0].readyState = FakeStream.CLOSED;
    refused.opened[0].fire('error');
    expect(refused.said).toEqual(['poll: the event stream of this grain needs an API key, which a page does not send']);
    expect([refused.timers, refused.opened[0].closed]).toEqual([[POLL_MS], true]);

    const dropped = following(WAITING.subject.links.stream);
    dropped.opened[0].fire('open');
    dropped.opened[0].readyState = FakeStream.CLOSED;
    dropped.opened[0].fire('error');
    expect(dropped.said.at(-1)).toBe('poll: the event stream closed');
  });

  it('polls from the start where there is no stream to follow', () => {
    for (const f of [following(undefined), following(WAITING.subject.links.stream, false)]) {
      expect([f.said, f.timers, f.opened]).toEqual([['poll: this page has no event stream to follow'], [POLL_MS], []]);
    }
  });

  it('refreshes one at a time: a burst while one runs makes one more, and a failure does not stop the next', async () => {
    let runs = 0;
    const failures: unknown[] = [];
    const gates: Array<() => void> = [];
    const refresh = oneAtATime(async () => {
      runs++;
      await new Promise<void>((resolve) => gates.push(resolve));
      if (runs === 2) throw new Error('the service answered 500');
    }, (error) => failures.push(error));
    refresh();
    refresh();
    refresh();
    refresh();
    expect(runs).toBe(1);
    gates.shift()!();
    await until(() => runs === 2);
    gates.shift()!();
    await until(() => failures.length === 1);
    expect(runs).toBe(2);
    refresh();
    expect(runs).toBe(3);
    gates.shift()!();
  });
});

/** Resolves once `done` holds, checked after each turn of the event loop's microtasks. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(done()).toBe(true);
}
