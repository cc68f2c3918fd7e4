/**
 * The inspection tells the truth about the doors (issue 35): for random
 * command sequences, sent through HTTP as the inspection lists them (its
 * `href` and `body`),
 * - every command the inspection lists as open is accepted (2xx), and every
 *   one it lists as refused is refused with the status and code it lists;
 * - open and refused together name every command, each once, in a stable order;
 * - `?at=<seq>` answers, for every fact, what the inspection answered right
 *   after that fact (the path, the state, the doors, the record's own JSON),
 *   and that JSON is the record as its own read answered it then.
 * For Matters (every consumer pattern and fixture Client) and Deadline Ladders:
 * random walks, and every command in every state along the paths to each end
 * (to fulfilled, declined and directed, sent back, consented, each terminal;
 * a ladder to its terminal rung and resolved, one satisfied).
 *
 * Failures print their seed; FC_SEED (and FC_PATH) replay one, FC_RUNS runs more.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadlineLadderMachine } from '../machines/deadline-ladder.ts';
import { finalStates } from '../machines/edges.ts';
import { matterMachine } from '../machines/matter.ts';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { call, testApp, type TestApp } from './helpers/app.ts';
import { checkProperty } from './model/property.ts';

let app: TestApp;
beforeAll(async () => {
  app = await testApp({ creationBound: { limit: 1_000_000 } });
});
afterAll(async () => {
  await app?.close();
});

type Door = { command: string; href: string; body?: Record<string, unknown>; status?: number; code?: string; transitions?: string[] };
type Inspection = { at: { seq: number; version: number; latest: boolean }; head: { seq: number }; state: { status: string; path: string }; open: Door[]; refused: Door[]; [k: string]: unknown };

async function inspect(path: string, at?: number): Promise<Inspection> {
  const res = await call(app, 'GET', `${path}/inspection${at === undefined ? '' : `?at=${at}`}`);
  if (res.status !== 200) throw new Error(`GET ${path}/inspection${at === undefined ? '' : `?at=${at}`} answered ${res.status} ${res.raw}`);
  return res.body.inspection;
}

/**
 * Half the steps take an open door that moves the record on without ending
 * it (a walk goes deep: a uniform pick among the open doors rarely reaches a
 * Signer); one in six any open door (a terminal among them); one in three a
 * refused command, which leaves the record where it is.
 */
const choice = fc.record({ mode: fc.constantFrom('progress', 'progress', 'progress', 'open', 'refused', 'refused'), pick: fc.nat({ max: 1_000 }) });

/** A walk: up to `deep` steps forward first (to reach a Signer, a Client's direction, a terminal rung), then random ones. */
const walkOf = (deep: number) =>
  fc.tuple(fc.array(fc.nat({ max: 1_000 }), { maxLength: deep }), fc.array(choice, { minLength: 1, maxLength: 16 })).map(([forward, rest]) => [...forward.map((pick) => ({ mode: 'progress', pick })), ...rest]);

const FINAL = new Set([...finalStates(matterMachine), ...finalStates(deadlineLadderMachine)]);
/** An open door that moves the record to another state, not a final one (or a tick, which moves a ladder's count). */
const progresses = (d: Door & { transitions?: string[] }) =>
  d.command === 'tick' || (d.transitions ?? []).some((edge) => {
    const to = edge.slice(edge.lastIndexOf('-> ') + 3);
    return !to.startsWith('(') && !FINAL.has(to);
  });

/** What the walks saw: each command sent, by the state it was sent in and what was answered (INSPECTION_SEEN=1 prints it). */
const seen = new Set<string>();

/** Sends a command as the inspection lists it; the answer. */
async function send(door: Door) {
  return call(app, 'POST', door.href, door.body ?? {});
}

/** Whether the door's answer is the one the inspection listed. */
function agrees(label: string, inspection: Inspection, door: Door, sent: { status: number; body: any; raw: string }) {
  const where = `${label}: ${door.command} in ${inspection.state.path} (${JSON.stringify(door.body ?? {})})`;
  if (inspection.open.includes(door)) {
    expect(sent.status >= 200 && sent.status < 300, `${where} was listed open, and answered ${sent.raw}`).toBe(true);
  } else {
    expect({ status: sent.status, code: sent.body?.code }, `${where} was listed refused ${door.code}`).toEqual({ status: door.status, code: door.code });
  }
}

/**
 * Every command, in every state along a path: for each prefix of `path` (a
 * fresh record driven through it by the doors the inspection lists open),
 * and for each command the inspection then lists, a fresh record is driven
 * through the same prefix and sent that command, which must be answered as
 * listed. The random walks pick; this leaves nothing out along the path.
 */
async function everyCommandAlong(label: string, open: () => Promise<string>, path: string[]) {
  const drive = async (steps: string[]) => {
    const record = await open();
    for (const command of steps) {
      const door = (await inspect(record)).open.find((d) => d.command === command);
      if (!door) throw new Error(`${label}: ${command} is not open after ${steps.join(', ')}`);
      const sent = await send(door);
      expect(sent.status, `${label}: ${command} after ${steps.join(', ')}: ${sent.raw}`).toBeLessThan(300);
    }
    return { record, inspection: await inspect(record) };
  };
  for (let i = 0; i <= path.length; i++) {
    const { inspection } = await drive(path.slice(0, i));
    for (const listed of [...inspection.open, ...inspection.refused]) {
      const fresh = await drive(path.slice(0, i));
      const door = [...fresh.inspection.open, ...fresh.inspection.refused].find((d) => d.command === listed.command)!;
      const sent = await send(door);
      seen.add(`${fresh.inspection.state.path} ${door.command} ${fresh.inspection.open.includes(door) ? 'accepted' : door.code}`);
      agrees(`${label} after [${path.slice(0, i).join(', ')}]`, fresh.inspection, door, sent);
    }
  }
}

/** What an answer as of now says, without what only the head knows. */
const asOfItself = (i: Inspection) => ({ ...i, at: { ...i.at, latest: undefined }, head: undefined });

/**
 * Walks one record: before each command, the inspection; the command sent as
 * it lists it must be answered as it lists it. After each, the record's own
 * read and the inspection are kept by the seq of its last fact; at the end
 * each is asked again with `?at=`.
 */
async function walk(label: string, record: string, readOwn: () => Promise<{ seq: number; own: unknown }>, pick: (i: Inspection) => 'matter' | 'ladder', choices: Array<{ mode: string; pick: number }>, commands: string[]) {
  const kept = new Map<number, { inspection: Inspection; own: unknown }>();
  const keep = async () => {
    const inspection = await inspect(record);
    const { seq, own } = await readOwn();
    expect(inspection.at.seq, `${label}: the inspection is as of the record's last fact`).toBe(seq);
    kept.set(seq, { inspection, own });
    return inspection;
  };
  let now = await keep();
  for (const c of choices) {
    const names = [...now.open, ...now.refused].map((d) => d.command);
    expect(new Set(names).size, `${label}: a command is listed once`).toBe(names.length);
    expect([...names].sort(), `${label}: open and refused name every command`).toEqual([...commands].sort());
    expect(names.filter((n) => now.open.some((d) => d.command === n)), `${label}: the order is the deciders'`).toEqual(commands.filter((n) => now.open.some((d) => d.command === n)));
    const forward = now.open.filter(progresses);
    const pool = c.mode === 'progress' && forward.length ? forward : c.mode === 'refused' && now.refused.length ? now.refused : now.open.length ? now.open : now.refused;
    const door = pool[c.pick % pool.length];
    const sent = await send(door);
    seen.add(`${now.state.path} ${door.command} ${now.open.includes(door) ? 'accepted' : door.code}`);
    agrees(label, now, door, sent);
    now = await keep();
  }
  // Time travel: the answer as of each fact kept is the one given right after it.
  for (const [seq, { inspection, own }] of kept) {
    const then = await inspect(record, seq);
    expect(asOfItself(then), `${label}: ?at=${seq}`).toEqual(asOfItself(inspection));
    expect(then[pick(then)], `${label}: ?at=${seq} shows the record as its own read answered it then`).toEqual(own);
  }
}

const MATTER_COMMANDS = ['advance', 'consent', 'gig-result.attested', 'gig-result.send_back', 'gig-result.declined', 'client-direction', 'terminal.withdrawn', 'terminal.lapsed', 'terminal.referred_out', 'documents'];
const LADDER_COMMANDS = ['tick', 'ack', 'monitor', 'satisfy', 'resolve.clientNotice', 'resolve.extensionPurchase', 'resolve.proSeHandoff', 'resolve.outsideCounselHandoff'];

describe('the inspection tells the truth about the doors', () => {
  it('Matters: every command in every state along the paths to each end, answered as listed', async () => {
    const ws = (await call(app, 'POST', '/workspaces')).body.workspace.id as string;
    const W = `/workspaces/${ws}`;
    const matter = (body: Record<string, unknown>) => async () => `${W}/matters/${(await call(app, 'POST', `${W}/matters`, { matterType: 'patent_provisional', ...body })).body.matter.id}`;
    const toSigner = ['advance', 'advance', 'advance', 'advance'];
    seen.clear();
    // To fulfilled, a Signer attesting each reserved act.
    await everyCommandAlong('a Matter to fulfilled', matter({ client: { name: 'Ada Inventor' } }), [...toSigner, 'gig-result.attested', 'advance', 'gig-result.attested']);
    // A Declination, then the Client's direction re-escalating; a send-back.
    await everyCommandAlong('a declined Matter', matter({ client: { name: 'Ada Inventor' } }), [...toSigner, 'gig-result.declined', 'client-direction']);
    await everyCommandAlong('a sent-back Matter', matter({ client: { name: 'Ada Inventor' } }), [...toSigner, 'gig-result.send_back']);
    // B2A2D: intake needs the Client's consent; the terminals.
    await everyCommandAlong('a B2A2D Matter', matter({ consumerPattern: 'B2A2D' }), ['consent']);
    for (const end of ['terminal.withdrawn', 'terminal.lapsed', 'terminal.referred_out']) await everyCommandAlong(`a Matter ${end}`, matter({}), ['advance', end]);
    for (const needed of ['open.waiting_on_signer advance MATTER_WAITING_ON_SIGNER', 'open.waiting_on_signer terminal.withdrawn MATTER_WAITING_ON_SIGNER', 'open.needs_client_direction advance MATTER_NEEDS_CLIENT_DIRECTION', 'open.intake advance GATE_CONSENT', 'open.sign gig-result.attested NO_PENDING_GIG', 'fulfilled advance MATTER_TERMINAL', 'lapsed documents MATTER_TERMINAL']) {
      expect([...seen], needed).toContain(needed);
    }
    if (process.env.INSPECTION_SEEN) console.log([...seen].sort().join('\n'));
  }, 600_000);

  it('Deadline Ladders: every command in every state along the path to the terminal rung and resolved, answered as listed', async () => {
    const ws = (await call(app, 'POST', '/workspaces')).body.workspace.id as string;
    const W = `/workspaces/${ws}`;
    const ladder = (title: string) => async () => `${W}/deadlines/${(await call(app, 'POST', `${W}/matters`, { matterType: 'patent_provisional', asset: { title } })).body.matter.assetId}`;
    seen.clear();
    await everyCommandAlong('an ack-due ladder', ladder(`${FIXTURE.ackDuePrefix} map`), ['monitor', 'tick', 'tick', 'tick', 'tick', 'tick', 'resolve.clientNotice']);
    await everyCommandAlong('a ladder satisfied', ladder('Self-folding map'), ['satisfy']);
    for (const needed of ['open.counting resolve.clientNotice NOT_AT_TERMINAL_RUNG', 'open.counting ack NO_ACK_DUE', 'open.terminalRung tick TICK_REFUSED', 'open.terminalRung resolve.proSeHandoff accepted', 'resolved tick LADDER_RESOLVED']) {
      expect([...seen], needed).toContain(needed);
    }
    if (process.env.INSPECTION_SEEN) console.log([...seen].sort().join('\n'));
  }, 600_000);

  it('Matters: open doors are accepted, refusals are the ones given, ?at= is the answer given then', async () => {
    const ws = (await call(app, 'POST', '/workspaces')).body.workspace.id as string;
    const W = `/workspaces/${ws}`;
    const variant = fc.record({ consumerPattern: fc.constantFrom('B2A', 'B2A2D'), client: fc.constantFrom('Ada Inventor', FIXTURE.fulfillingClient, FIXTURE.decliningClient) });
    const property = fc.asyncProperty(variant, walkOf(10), async (v, choices) => {
      const opened = await call(app, 'POST', `${W}/matters`, { matterType: 'patent_provisional', consumerPattern: v.consumerPattern, client: { name: v.client } });
      expect(opened.status).toBe(201);
      const id = opened.body.matter.id as string;
      expect(opened.body.matter.links).toEqual({ inspect: `${W}/matters/${id}/inspect`, inspection: `${W}/matters/${id}/inspection` });
      const readOwn = async () => {
        const got = await call(app, 'GET', `${W}/matters/${id}`);
        return { seq: got.body.journal.at(-1).seq as number, own: got.body.matter };
      };
      await walk(`[${v.consumerPattern}, ${v.client}] ${id}`, `${W}/matters/${id}`, readOwn, () => 'matter', choices, MATTER_COMMANDS);
    });
    await checkProperty('the Matter inspection agrees with the doors', property, 150);
    if (process.env.INSPECTION_SEEN) console.log([...seen].sort().join('\n'));
  }, 600_000);

  it('Deadline Ladders: open doors are accepted, refusals are the ones given, ?at= is the answer given then', async () => {
    const ws = (await call(app, 'POST', '/workspaces')).body.workspace.id as string;
    const W = `/workspaces/${ws}`;
    // An ack-due ladder sits in its final week: ticks reach the terminal rung within a run.
    const title = fc.constantFrom(`${FIXTURE.ackDuePrefix} map`, 'Self-folding map');
    const property = fc.asyncProperty(title, fc.array(choice, { minLength: 1, maxLength: 24 }), async (t, choices) => {
      const opened = await call(app, 'POST', `${W}/matters`, { matterType: 'patent_provisional', asset: { title: t } });
      expect(opened.status).toBe(201);
      const D = `${W}/deadlines/${opened.body.matter.assetId}`;
      const readOwn = async () => {
        const [got, inspection] = await Promise.all([call(app, 'GET', D), inspect(D)]);
        const { type: _type, provenance: _provenance, ...own } = got.body;
        return { seq: inspection.head.seq, own };
      };
      await walk(`[${t}] ${D}`, D, readOwn, () => 'ladder', choices, LADDER_COMMANDS);
    });
    seen.clear();
    await checkProperty('the ladder inspection agrees with the doors', property, 60);
    if (process.env.INSPECTION_SEEN) console.log([...seen].sort().join('\n'));
  }, 600_000);
});
