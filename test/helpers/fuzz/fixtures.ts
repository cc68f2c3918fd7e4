/**
 * The world the fuzzer aims at: real records made through the service's own
 * doors before the fuzzing starts, so requests valid by schema reach deep
 * into the handlers instead of stopping at a not-found. Two API keys (one
 * under a spend ceiling) with top-level Matters, webhooks and pending Gigs;
 * two sandbox workspaces, two tenants (with Offers) and two firms (with
 * Enrollments), each with Matters at several stages, Assets and their
 * Deadline Ladders, webhook endpoints and their deliveries.
 *
 * Each grain is one tracked tail (its `latestSeq`, read cheaply through the
 * JSON answer of `GET …/events/stream`); ids the fuzzer's own 2xx answers
 * mint are harvested into the grain's pools as it runs.
 */
import type { Agent } from 'node:http';
import { FIXTURE } from '../../../src/domain/fixtures.ts';
import { sha256Hex } from '../../../src/domain/hash.ts';
import { registeredAttestation, signed } from '../supply.ts';
import { json } from './http.ts';
import { until } from '../wait.ts';

export type PoolName = 'matters' | 'assets' | 'gigs' | 'webhooks' | 'deliveries' | 'members' | 'offers' | 'practitioners';

export interface Grain {
  kind: 'workspaces' | 'tenants' | 'firms' | 'top';
  /** The grain id (the top level's is the key's name). */
  id: string;
  /** `/workspaces/ws_…`, or '' at the top level. */
  prefix: string;
  /** The tracked tail's name. */
  tail: string;
  /** The key's headers at the top level. */
  auth: Record<string, string>;
  pools: Record<PoolName, string[]>;
  /** Matter -> the Gig it waits on (harvested from every Matter view answered). */
  pending: Map<string, string>;
}

export interface World {
  grains: Grain[];
  byTail: Map<string, Grain>;
  /** The webhook receiver's URL (loopback, answers 204). */
  receiverUrl: string;
  /** Keys of no grain, which the doors that end the key they are sent with (a roll, a revocation) present instead of a grain's. */
  expendableKeys: string[];
}

const emptyPools = (): Record<PoolName, string[]> => ({ matters: [], assets: [], gigs: [], webhooks: [], deliveries: [], members: [], offers: [], practitioners: ['pr_ada', 'pr_ben'] });

const POOL_OF_PREFIX: Record<string, PoolName> = { mt: 'matters', as: 'assets', gig: 'gigs', wh: 'webhooks', dl: 'deliveries' };
const ID = /^(mt|as|gig|wh|dl)_[0-9a-z]{20,30}$/;
/** Keys for the roll and revoke doors to end: enough that most runs end some of them and still roll others. */
const EXPENDABLE_KEYS = 12;
/** Harvested ids kept per pool beyond the fixtures' own. */
const POOL_CAP = 80;

/** Walks an answer and adds the ids it names to the grain's pools (bounded: the oldest harvested go first). */
export function harvest(grain: Grain, body: unknown, depth = 0): void {
  if (depth > 5 || body === null || typeof body !== 'object') return;
  if (Array.isArray(body)) {
    for (const item of body.slice(0, 20)) harvest(grain, item, depth + 1);
    return;
  }
  const o = body as Record<string, unknown>;
  if (typeof o.id === 'string' && o.id.startsWith('mt_') && 'status' in o) {
    if (typeof o.pendingGigId === 'string') grain.pending.set(o.id, o.pendingGigId);
    else grain.pending.delete(o.id);
  }
  for (const v of Object.values(o)) {
    if (typeof v === 'string') {
      if (ID.test(v)) {
        const pool = grain.pools[POOL_OF_PREFIX[v.slice(0, v.indexOf('_'))]];
        if (!pool.includes(v)) {
          pool.push(v);
          if (pool.length > POOL_CAP) pool.splice(8, 1);
        }
      }
    } else harvest(grain, v, depth + 1);
  }
}

export const ARTIFACT = `sha256:${sha256Hex('fuzz artifact')}`;

/** The Asset of the grain's `i`-th fixture Matter. */
const opened = (g: Grain, i: number) => g.pools.assets[i];

/** Builds the world on a fresh service; every step must succeed. */
export async function buildWorld(base: URL, agent: Agent, receiverUrl: string): Promise<World> {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, expect?: number) => {
    const res = await json(base, agent, method, path, body, headers);
    if (expect !== undefined && res.status !== expect) throw new Error(`fixture ${method} ${path} answered ${res.status}, not ${expect}: ${JSON.stringify(res.body).slice(0, 500)}`);
    return res;
  };
  const grains: Grain[] = [];

  // Two keys at the top level: A without a ceiling, B under a small one.
  for (const [name, ceiling] of [['A', undefined], ['B', 1000]] as const) {
    const issued = await call('POST', '/keys', { email: `fuzz-${name.toLowerCase()}@example.com`, ...(ceiling ? { spendCeilingUsd: ceiling } : {}) }, {}, 201);
    grains.push({ kind: 'top', id: name, prefix: '', tail: `key:${name}`, auth: { authorization: `Bearer ${issued.body.key}` }, pools: emptyPools(), pending: new Map() });
  }
  for (const kind of ['workspaces', 'tenants', 'firms'] as const) {
    for (let i = 0; i < 2; i++) {
      const made = await call('POST', `/${kind}`, undefined, {}, 201);
      const id = made.body[kind.slice(0, -1)].id as string;
      grains.push({ kind, id, prefix: `/${kind}/${id}`, tail: `${kind.slice(0, 2)}:${id}`, auth: {}, pools: emptyPools(), pending: new Map() });
    }
  }

  for (const g of grains) {
    const P = g.prefix;
    const h = g.auth;
    if (g.kind === 'firms') {
      for (const [memberId, grants] of [
        ['mb_fixture_eligible', ['roster', 'remittance', 'routing']],
        ['mb_fixture_suspended', ['roster']],
      ] as const) {
        await call('POST', `${P}/enrollments`, { memberId, grants }, {}, 201);
        g.pools.members.push(memberId);
      }
      g.pools.members.push('mb_nobody');
      await call('PUT', `${P}/routing`, { remittanceDesignation: 'individual' }, {}, 200);
      await call('POST', `${P}/conflicts/entries`, { nameHash: sha256Hex('acme') }, {}, 201);
      continue;
    }
    if (g.kind === 'tenants') {
      await call('PUT', `${P}/offers`, [{ id: 'prov', title: 'Provisional filing', priceUsd: 199, matterType: 'patent_provisional' }, { id: 'tm', title: 'Office action', priceUsd: 249, matterType: 'trademark_office_action' }], {}, 200);
      g.pools.offers.push('prov', 'tm');
    }
    // A webhook endpoint first, so the Matters' events are delivered to it.
    const hook = await call('POST', `${P}/webhooks`, { url: receiverUrl, events: ['*'] }, h, 201);
    harvest(g, hook.body);
    const mint = g.kind === 'tenants' ? { offer: 'prov' } : { matterType: 'patent_provisional' };
    const clients = g.kind === 'top' ? ['Ada Inventor', 'Ben Holder', 'Cy Maker', 'Di Waiting'] : [FIXTURE.fulfillingClient, FIXTURE.decliningClient, 'Ada Inventor', 'Ben Holder'];
    for (const [i, client] of clients.entries()) {
      const title = i === 0 ? `${FIXTURE.ackDuePrefix} map` : i === 1 ? `${FIXTURE.noticeEvePrefix} lamp` : 'Self-folding map';
      const opened = await call('POST', `${P}/matters`, { ...mint, client: { name: client }, asset: { title } }, h, 201);
      harvest(g, opened.body);
      const id = opened.body.matter.id as string;
      await call('POST', `${P}/matters/${id}/documents`, { name: 'spec.pdf', kind: 'specification', sha256: sha256Hex(`spec ${i}`) }, h, 201);
      // Walk it some way: the last ones stop waiting on their Signer (a pending Gig to answer).
      const steps = [1, 4, 4, 2][i] ?? 1;
      for (let s = 0; s < steps; s++) {
        const advanced = await call('POST', `${P}/matters/${id}/advance`, {}, h);
        harvest(g, advanced.body);
        if (advanced.status !== 200) break;
      }
      const now = await call('GET', `${P}/matters/${id}`);
      harvest(g, now.body);
      if (now.body.matter?.pendingGigId) g.pools.gigs.push(now.body.matter.pendingGigId);
    }
    // One Matter walked to fulfilled (its settlement readable): the fixture Signer answers inside a sandbox, the network's signed callback at the top level.
    const done = await call('POST', `${P}/matters`, { ...mint, client: { name: g.kind === 'top' ? 'Dee Done' : FIXTURE.fulfillingClient } }, h, 201);
    harvest(g, done.body);
    for (let s = 0; s < 8; s++) {
      const advanced = await call('POST', `${P}/matters/${done.body.matter.id}/advance`, {}, h);
      harvest(g, advanced.body);
      const gigId = advanced.body.matter?.pendingGigId;
      if (g.kind === 'top' && gigId) {
        const cb = signed({ gigId, outcome: 'attested', attestation: registeredAttestation(`fixture ${gigId}`), ...(s >= 4 ? { receipt: `uspto-receipt:${gigId.slice(-8)}` } : {}) });
        harvest(g, (await call('POST', `${P}/matters/${done.body.matter.id}/gig-result`, cb.payload, cb.headers)).body);
      }
      if (advanced.status !== 200) break;
    }
    // At the top level fixture titles are ordinary: tick one ladder into its final week (acks owed) and another to its terminal rung.
    if (g.kind === 'top') {
      for (const [assetId, left] of [[opened(g, 0), 5], [opened(g, 1), 0]] as const) {
        const ladder = await call('GET', `${P}/deadlines/${assetId}`, undefined, h, 200);
        if (ladder.body.daysUntilDeadline > left) await call('POST', `${P}/deadlines/${assetId}/tick`, { days: ladder.body.daysUntilDeadline - left }, h, 200);
      }
    } else {
      const ladder = await call('GET', `${P}/deadlines/${opened(g, 2)}`, undefined, h, 200);
      await call('POST', `${P}/deadlines/${opened(g, 2)}/tick`, { days: ladder.body.daysUntilDeadline }, h, 200);
    }
    const order = await call('POST', `${P}/orders`, { mint: 'acme', offer: g.kind === 'tenants' ? 'prov' : 'provisional', title: 'Map', inventor: 'Ada', listFeeUsd: 199 }, h);
    harvest(g, order.body);
    if (g.kind !== 'tenants') await call('POST', `${P}/conflicts/pr_ada/entries`, { nameHash: sha256Hex('acme') }, h);
  }

  // A top-level Gig answered by the network's signed callback, so the door has seen one.
  const top = grains.find((g) => g.kind === 'top')!;
  const waiting = await json(base, agent, 'GET', `/matters/${top.pools.matters[1]}`);
  if (waiting.body.matter?.pendingGigId) {
    const cb = signed({ gigId: waiting.body.matter.pendingGigId, outcome: 'sent_back', memo: 'fuzz fixture' });
    await call('POST', `/matters/${top.pools.matters[1]}/gig-result`, cb.payload, cb.headers);
  }

  // The endpoints' deliveries (they arrive as the outbox sends them: awaited, however loaded the machine).
  for (const g of grains) {
    for (const wh of g.pools.webhooks) {
      await until(async () => {
        const listed = await call('GET', `${g.prefix}/webhooks/${wh}/deliveries?limit=10`, undefined, g.auth);
        const ids = (listed.body.results ?? []).map((d: { deliveryId: string }) => d.deliveryId);
        g.pools.deliveries.push(...ids);
        return ids.length > 0;
      }, `a delivery to ${g.prefix}/webhooks/${wh}`);
    }
  }
  const expendableKeys: string[] = [];
  for (let i = 0; i < EXPENDABLE_KEYS; i++) expendableKeys.push((await call('POST', '/keys', { email: `fuzz-expendable-${i}@example.com` }, {}, 201)).body.key);
  return { grains, byTail: new Map(grains.map((g) => [g.tail, g])), receiverUrl, expendableKeys };
}

/** The `latestSeq` of every tracked tail. */
export async function readTails(base: URL, agent: Agent, world: World): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  await Promise.all(
    world.grains.map(async (g) => {
      const res = await json(base, agent, 'GET', `${g.prefix}/events/stream`, undefined, g.auth);
      if (res.status !== 200 || typeof res.body.latestSeq !== 'number') throw new Error(`tail of ${g.tail}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      out.set(g.tail, res.body.latestSeq);
    }),
  );
  return out;
}
