/**
 * A mixed concurrent load against a real running service (a base URL), as
 * many agents and one supply network would drive it at once, recording every
 * write the service acknowledged (2xx) with enough detail to check later that
 * it is still there, as answered. Used by the crash cycles
 * (test/crash-cycles.test.ts), which kill the service under it, and by the
 * soak (bench/soak.ts), which runs it steadily for minutes.
 *
 * The mix, over sandbox grains and the top level:
 * - Matters opened in workspaces (plain Clients, the fulfilling fixture Client,
 *   `[fixture:ack-due]` Assets), in Tenants (against a declared Offer) and at
 *   the top level (with an API key);
 * - advances through the six stages; the reserved acts' Gigs answered by the
 *   supply network's callback (`gig-result`): unsigned by the fixture Signer
 *   inside a sandbox, signed (Standard Webhooks) by a registered Signer at the
 *   top level;
 * - documents recorded on Matters;
 * - Deadline Ladder ticks, the daily acks of the final week, the terminal
 *   rung's resolution;
 * - Tenant writes (Offers, routing), firm writes (Enrollments, amendments,
 *   revocations, conflicts entries, routing);
 * - API keys issued and new sandbox grains opened, now and then;
 * - reads by id and tail pages, a few.
 * About a third of the writes in a grain that keeps answers (a sandbox grain,
 * an API key, the signed callback) carry an `Idempotency-Key` (or, for the
 * callback, its `webhook-id`): their exact answer is kept, so a check can send
 * the same request again and expect the same answer, replayed.
 *
 * One `MixedLoad` keeps its knowledge (grains, Matters, ladders, members)
 * across runs, so it can drive one service after another on the same data
 * directory. An entity is leased by one client at a time, so the mix does not
 * race itself; what a killed process left unanswered is learnt again (a
 * refusal marks the entity stale, and the next client to pick it reads it
 * first), or told by the checker (`observeMatter`).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';

// ---------------------------------------------------------------------------
// A seeded PRNG, so a failing run can be replayed (as far as two processes and a scheduler allow).

export type Rng = () => number;

/** sfc32 over a 32-bit seed: a fast, well-mixed PRNG returning [0, 1). */
export function seededRng(seed: number): Rng {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const next = () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 15; i++) next();
  return next;
}

/** A seed from the environment (decimal), or a fresh one. */
export function seedFrom(value: string | undefined): number {
  if (value !== undefined && value !== '') {
    const seed = Number(value);
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new Error(`a seed is an integer from 0 to 4294967295, got ${JSON.stringify(value)}`);
    return seed;
  }
  return randomBytes(4).readUInt32LE(0);
}

// ---------------------------------------------------------------------------
// The operator's side of the top level: the supply network's secret and a registered Signer.

export interface Operator {
  /** Env for `spawnService`: LEGALWORK_SUPPLY_SECRET and LEGALWORK_SIGNER_REGISTRY. */
  env: Record<string, string>;
  secret: string;
  signer: { signerId: string; credentialRef: string };
}

/** Writes a Signer registry (one registered, eligible Signer) into `dir` and makes a supply-network secret. */
export function topLevelOperator(dir: string): Operator {
  const signer = { signerId: 'sg_load_agent', credentialRef: 'uspto-reg:80077' };
  const file = join(dir, 'signers.json');
  writeFileSync(file, JSON.stringify([{ ...signer, standing: 'good', coverageInForce: true }]));
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  return { env: { LEGALWORK_SUPPLY_SECRET: secret, LEGALWORK_SIGNER_REGISTRY: file }, secret, signer };
}

// ---------------------------------------------------------------------------
// What the load knows.

export type GrainKind = 'workspace' | 'tenant' | 'firm' | 'key';

export interface Grain {
  kind: GrainKind;
  /** The grain's id: `ws_…`, `tn_…`, `fm_…`, or the key's id `key_…` (also the grain's name in the journal). */
  id: string;
  /** Path prefix of its doors: `/workspaces/ws_…`, …, or '' at the top level. */
  prefix: string;
  /** Headers every request in it carries: the API key at the top level. */
  headers: Record<string, string>;
  /** A Tenant can mint Matters once an Offer is declared. */
  offers?: number;
}

type Flavour = 'plain' | 'fulfilling' | 'ack-due';

export interface MatterRef {
  id: string;
  assetId: string;
  grain: Grain;
  flavour: Flavour;
  status: string;
  pendingGigId?: string;
  version: number;
  /** A refusal (or an answer lost to a kill) left what we know behind: read it before the next write. */
  stale: boolean;
  /** Its ladder, as last answered. */
  ladder: { days: number; ackDue: boolean; closed: boolean; stale: boolean };
}

interface Member {
  live: boolean;
  grants: string[];
  stale: boolean;
}

/** A request to send again after a restart: it must be answered as the first time, replayed. */
export interface Replay {
  method: 'POST' | 'PUT';
  path: string;
  headers: Record<string, string>;
  body: string;
  status: number;
  /** The exact answer text. */
  answer: string;
}

/**
 * One acknowledged write. Where the answer says where its fact is (`seq` in
 * the grain's tail), it is pinned there; a Matter write whose answer names a
 * version or an id instead is found in the Matter's journal (`locate`), and
 * pinned then.
 */
export interface Ack {
  /** Order of acknowledgment. */
  n: number;
  /** The run it was answered in (a crash cycle). */
  round: number;
  op: string;
  /** The journal's grain of the fact (`keys` for an issued key). */
  grain: string;
  seq?: number;
  /** The fact the answer committed: its kind and subject. */
  kind: string;
  subject: string;
  /** A fact in a stream found by version (an issued key's `keyhash:` stream). */
  stream?: { name: string; version: number };
  /** A Matter write not yet pinned to a seq: what to look for in the Matter's journal. */
  matter?: { id: string; version?: number; verb?: string; gigId?: string; documentId?: string; by?: string };
  replay?: Replay;
}

export interface Sample {
  op: string;
  status: number;
  ms: number;
}

/** A 5xx, or a 2xx without a readable body: a fault of the service. */
export interface Fault {
  op: string;
  method: string;
  path: string;
  status: number;
  body: string;
}

export interface Weights {
  [op: string]: number;
}

/** The default mix (relative weights; an op with nothing to act on falls back to another). */
export const DEFAULT_WEIGHTS: Weights = {
  'workspace.matter.create': 3,
  'tenant.matter.create': 1.5,
  'top.matter.create': 2,
  advance: 30,
  'gig-result': 10,
  document: 8,
  tick: 10,
  ack: 6,
  'tenant.offers': 1.5,
  'tenant.routing': 1,
  'firm.enrollment': 4,
  'firm.conflicts': 3,
  'firm.routing': 1,
  'key.issue': 0.05,
  'grain.open': 0.4,
  read: 5,
};

export interface MixedLoadOptions {
  rng: Rng;
  operator: Operator;
  /** Concurrent clients; 12 by default. */
  clients?: number;
  weights?: Weights;
  /** Keep every acknowledged write in `acks` (the crash cycles); the soak does not. */
  keepAcks?: boolean;
  /** Keep latency samples (the soak drains them with `takeSamples`). */
  keepSamples?: boolean;
  /** At most one new sandbox grain of a kind per this many ms (the creation bound is 1000 per hour per caller). */
  grainGapMs?: number;
}

export interface RoundStats {
  round: number;
  seconds: number;
  requests: number;
  acked: number;
  /** Requests sent whose answer never arrived (the process died, or the connection failed, with the request on it). */
  unanswered: number;
  /** Requests that found no listener (the process was gone, or no longer listening), or that a draining process refused unrun (503 SERVICE_DRAINING). */
  refused: number;
  statuses: Record<string, number>;
}

export interface Running {
  /** Ends the run: each client finishes the request it has in flight, then stops. */
  stop(): void;
  done: Promise<RoundStats>;
}

interface Answer {
  status: number;
  text: string;
  body: any;
  headers: Headers;
}

class Unanswered extends Error {}

/** A set with a uniform random pick and O(1) removal. */
class Pool<T> {
  readonly items: T[] = [];
  private readonly at = new Map<T, number>();
  add(x: T): void {
    if (this.at.has(x)) return;
    this.at.set(x, this.items.length);
    this.items.push(x);
  }
  has(x: T): boolean {
    return this.at.has(x);
  }
  remove(x: T): void {
    const i = this.at.get(x);
    if (i === undefined) return;
    const last = this.items.pop()!;
    this.at.delete(x);
    if (last !== x) {
      this.items[i] = last;
      this.at.set(last, i);
    }
  }
}

const SHA = (s: string) => createHash('sha256').update(s).digest('hex');
const CLOSED_STATUSES = new Set(['fulfilled', 'withdrawn', 'declined', 'abandoned', 'needs_client_direction', 'closed', 'cancelled']);
const MEMBERS = ['mb_fixture_eligible', 'mb_fixture_suspended', 'mb_fixture_revoking'];
const GRANTS = ['roster', 'remittance', 'routing'];
const FULFILLING_CLIENT = 'Fulfilling Client (fixture)';
const ACK_DUE_PREFIX = '[fixture:ack-due]';
const FIXTURE_ATTESTATION = { signedBy: 'sg_fixture_eligible', credentialRef: 'uspto-reg:70001' };

export class MixedLoad {
  readonly acks: Ack[] = [];
  readonly faults: Fault[] = [];
  readonly grains: Grain[] = [];
  readonly matters = new Map<string, MatterRef>();
  /** Matters written to in the current run (answered or not): the ones whose journals may have moved. */
  readonly touched = new Set<string>();
  /** Every acknowledged write, counted (kept or not). */
  ackCount = 0;
  requests = 0;
  round = 0;

  private readonly rng: Rng;
  private readonly operator: Operator;
  private readonly clients: number;
  private readonly ops: Array<[string, number]>;
  private readonly totalWeight: number;
  private readonly keepAcks: boolean;
  private readonly keepSamples: boolean;
  private readonly grainGapMs: number;
  private samples: Sample[] = [];
  /** Matters that can still be advanced (or answered), and every ladder still open. */
  private readonly live = new Pool<MatterRef>();
  private readonly ladders = new Pool<MatterRef>();
  /** The `[fixture:ack-due]` ladders: their final week (acks, ticks, the terminal rung's resolution). */
  private readonly finalWeeks = new Pool<MatterRef>();
  private readonly members = new Map<string, Member>();
  private readonly busy = new Set<string>();
  private readonly lastGrainOpen = new Map<string, number>();
  private base = '';
  private stopping = false;
  private stats: RoundStats = this.freshStats();

  constructor(options: MixedLoadOptions) {
    this.rng = options.rng;
    this.operator = options.operator;
    this.clients = options.clients ?? 12;
    this.ops = Object.entries(options.weights ?? DEFAULT_WEIGHTS);
    this.totalWeight = this.ops.reduce((sum, [, w]) => sum + w, 0);
    this.keepAcks = options.keepAcks ?? true;
    this.keepSamples = options.keepSamples ?? false;
    this.grainGapMs = options.grainGapMs ?? 3000;
  }

  /** The grains the load writes in, opened on the service at `base`: two workspaces, a Tenant with an Offer and routing, a firm, two API keys. */
  async setup(base: string): Promise<void> {
    this.base = base;
    for (const kind of ['workspace', 'workspace', 'tenant', 'firm'] as const) await this.openGrain(kind, true);
    for (let i = 0; i < 2; i++) await this.issueKey();
    const tenant = this.grains.find((g) => g.kind === 'tenant')!;
    await this.declareOffers(tenant);
    await this.declareTenantRouting(tenant);
  }

  /** Drives the service at `base` with the mix until `stop()`, or until every client has lost the service (`stopOnNetworkError`). */
  run(base: string, options: { stopOnNetworkError?: boolean } = {}): Running {
    this.base = base;
    this.round++;
    this.stopping = false;
    this.touched.clear();
    this.stats = this.freshStats();
    const started = performance.now();
    const stopOnNetworkError = options.stopOnNetworkError ?? true;
    const client = async () => {
      while (!this.stopping) {
        try {
          await this.step();
        } catch (error) {
          if (!(error instanceof Unanswered)) throw error;
          if (stopOnNetworkError) return;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    const done = Promise.all(Array.from({ length: this.clients }, client)).then(() => ({ ...this.stats, seconds: (performance.now() - started) / 1000 }));
    return { stop: () => (this.stopping = true), done };
  }

  /** The latency samples since the last call. */
  takeSamples(): Sample[] {
    const taken = this.samples;
    this.samples = [];
    return taken;
  }

  /** What a checker read of a Matter (`GET …/matters/{id}`): the load acts on it from there. */
  observeMatter(id: string, matter: { status: string; version: number; pendingGigId?: string }): void {
    const m = this.matters.get(id);
    if (!m) return;
    m.status = matter.status;
    m.version = matter.version;
    m.pendingGigId = matter.pendingGigId;
    m.stale = false;
    if (CLOSED_STATUSES.has(m.status)) this.retire(m);
  }

  // -------------------------------------------------------------------------

  private freshStats(): RoundStats {
    return { round: this.round, seconds: 0, requests: 0, acked: 0, unanswered: 0, refused: 0, statuses: {} };
  }

  private pick<T>(xs: readonly T[]): T | undefined {
    return xs.length ? xs[Math.floor(this.rng() * xs.length)] : undefined;
  }

  private chance(p: number): boolean {
    return this.rng() < p;
  }

  /** One request. Throws `Unanswered` when no answer arrived (nothing is known of its effect). */
  private async send(op: string, method: 'GET' | 'POST' | 'PUT', path: string, options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
    const payload = options.raw ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
    const headers = { ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers };
    const t0 = performance.now();
    this.requests++;
    this.stats.requests++;
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.base}${path}`, { method, headers, body: payload });
      text = await res.text();
    } catch (error) {
      if ((error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED') this.stats.refused++;
      else this.stats.unanswered++;
      throw new Unanswered(String(error));
    }
    const ms = performance.now() - t0;
    if (this.keepSamples) this.samples.push({ op, status: res.status, ms });
    this.stats.statuses[res.status] = (this.stats.statuses[res.status] ?? 0) + 1;
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    // A stopping process refuses what arrives after its stop began (nothing of it ran): the client stops as it would on a refused connection.
    if (res.status === 503 && body?.code === 'SERVICE_DRAINING') {
      this.stats.refused++;
      throw new Unanswered('the service is draining');
    }
    if (res.status >= 500 || (res.ok && body === undefined)) this.faults.push({ op, method, path, status: res.status, body: text.slice(0, 2000) });
    return { status: res.status, text, body, headers: res.headers };
  }

  private acked(ack: Omit<Ack, 'n' | 'round'>): void {
    this.ackCount++;
    this.stats.acked++;
    if (this.keepAcks) this.acks.push({ n: this.ackCount, round: this.round, ...ack });
  }

  /** A fresh Idempotency-Key on about a third of the writes: the answer is kept for a replay. */
  private idempotency(): Record<string, string> {
    return this.chance(0.33) ? { 'idempotency-key': randomUUID() } : {};
  }

  private replayOf(method: 'POST' | 'PUT', path: string, headers: Record<string, string>, payload: string, res: Answer): Replay | undefined {
    if (!headers['idempotency-key'] && !headers['webhook-id']) return undefined;
    return { method, path, headers: { 'content-type': 'application/json', ...headers }, body: payload, status: res.status, answer: res.text };
  }

  private async lease<T>(key: string, body: () => Promise<T>): Promise<T | undefined> {
    if (this.busy.has(key)) return undefined;
    this.busy.add(key);
    try {
      return await body();
    } finally {
      this.busy.delete(key);
    }
  }

  private async step(): Promise<void> {
    let r = this.rng() * this.totalWeight;
    let op = this.ops[this.ops.length - 1][0];
    for (const [name, w] of this.ops) {
      if ((r -= w) < 0) {
        op = name;
        break;
      }
    }
    const did = await this.perform(op);
    // Nothing to act on for that op (no Matter waits on a Signer, say): open a Matter instead.
    if (!did) await this.createMatter(this.pick(this.grains.filter((g) => g.kind === 'workspace'))!, 'workspace.matter.create');
  }

  private async perform(op: string): Promise<boolean> {
    switch (op) {
      case 'workspace.matter.create':
        return this.createMatter(this.pick(this.grains.filter((g) => g.kind === 'workspace'))!, op);
      case 'tenant.matter.create': {
        const tenant = this.pick(this.grains.filter((g) => g.kind === 'tenant' && (g.offers ?? 0) > 0));
        return tenant ? this.createMatter(tenant, op) : false;
      }
      case 'top.matter.create':
        return this.createMatter(this.pick(this.grains.filter((g) => g.kind === 'key'))!, op);
      case 'advance':
        return this.onMatter((m) => !m.pendingGigId, (m) => this.advance(m));
      case 'gig-result':
        return this.onMatter((m) => !!m.pendingGigId, (m) => this.gigResult(m));
      case 'document':
        return this.onMatter(() => true, (m) => this.document(m));
      case 'tick':
        return this.onLadder(this.ladders, (m) => m.ladder.days > 40, (m) => this.tick(m));
      case 'ack':
        return this.onLadder(this.finalWeeks, () => true, (m) => this.ackOrResolve(m));
      case 'tenant.offers': {
        const tenant = this.pick(this.grains.filter((g) => g.kind === 'tenant'));
        return tenant ? ((await this.lease(`offers:${tenant.id}`, () => this.declareOffers(tenant))) ?? true) : false;
      }
      case 'tenant.routing': {
        const tenant = this.pick(this.grains.filter((g) => g.kind === 'tenant'));
        return tenant ? ((await this.lease(`routing:${tenant.id}`, () => this.declareTenantRouting(tenant))) ?? true) : false;
      }
      case 'firm.enrollment':
        return this.enrollment();
      case 'firm.conflicts':
        return this.conflictsEntry();
      case 'firm.routing':
        return this.firmRouting();
      case 'key.issue':
        await this.issueKey();
        return true;
      case 'grain.open': {
        const kind = this.pick(['workspace', 'tenant', 'firm'] as const)!;
        return this.openGrain(kind, false);
      }
      case 'read':
        return this.read();
      default:
        throw new Error(`unknown op ${op}`);
    }
  }

  /** Runs `body` on a random Matter that `fits`, leased; false when none was found in a few tries. */
  private async onMatter(fits: (m: MatterRef) => boolean, body: (m: MatterRef) => Promise<void>): Promise<boolean> {
    for (let tries = 0; tries < 8; tries++) {
      const m = this.pick(this.live.items);
      if (!m || this.busy.has(m.id)) continue;
      if (!m.stale && !fits(m)) continue;
      await this.lease(m.id, async () => {
        if (m.stale) await this.refreshMatter(m);
        if (!m.stale && fits(m) && this.live.has(m)) await body(m);
      });
      return true;
    }
    return false;
  }

  private async onLadder(pool: Pool<MatterRef>, fits: (m: MatterRef) => boolean, body: (m: MatterRef) => Promise<void>): Promise<boolean> {
    for (let tries = 0; tries < 8; tries++) {
      const m = this.pick(pool.items);
      const key = `ladder:${m?.assetId}`;
      if (!m || this.busy.has(key)) continue;
      if (!m.ladder.stale && !fits(m)) continue;
      await this.lease(key, async () => {
        if (m.ladder.stale) await this.refreshLadder(m);
        if (!m.ladder.closed && fits(m)) await body(m);
      });
      return true;
    }
    return false;
  }

  private retire(m: MatterRef): void {
    this.live.remove(m);
  }

  private retireLadder(m: MatterRef): void {
    m.ladder.closed = true;
    this.ladders.remove(m);
    this.finalWeeks.remove(m);
  }

  private async refreshMatter(m: MatterRef): Promise<void> {
    const res = await this.send('read', 'GET', `${m.grain.prefix}/matters/${m.id}`);
    if (res.status === 200) this.observeMatter(m.id, res.body.matter);
  }

  private async refreshLadder(m: MatterRef): Promise<void> {
    const res = await this.send('read', 'GET', `${m.grain.prefix}/deadlines/${m.assetId}`);
    if (res.status !== 200) return;
    const v = res.body;
    m.ladder = { days: v.daysUntilDeadline, ackDue: v.ackRequiredToday, closed: v.status !== 'open', stale: false };
    if (m.ladder.closed) this.retireLadder(m);
  }

  // -------------------------------------------------------------------------
  // The doors.

  private async openGrain(kind: 'workspace' | 'tenant' | 'firm', force: boolean): Promise<boolean> {
    const now = performance.now();
    if (!force && now - (this.lastGrainOpen.get(kind) ?? -Infinity) < this.grainGapMs) return false;
    this.lastGrainOpen.set(kind, now);
    const plural = `${kind}s`;
    const res = await this.send('grain.open', 'POST', `/${plural}`);
    if (res.status !== 201) {
      if (force) throw new Error(`POST /${plural} answered ${res.status}: ${res.text}`);
      return true;
    }
    const id = res.body[kind].id as string;
    const grain: Grain = { kind, id, prefix: `/${plural}/${id}`, headers: {}, ...(kind === 'tenant' ? { offers: 0 } : {}) };
    this.grains.push(grain);
    this.acked({ op: 'grain.open', grain: id, seq: 1, kind: `${kind}.opened`, subject: id });
    return true;
  }

  private async issueKey(): Promise<void> {
    const res = await this.send('key.issue', 'POST', '/keys', { body: { email: `load-${this.ackCount}@legalwork.test` } });
    if (res.status !== 201) throw new Error(`POST /keys answered ${res.status}: ${res.text}`);
    const { key, keyId } = res.body as { key: string; keyId: string };
    this.grains.push({ kind: 'key', id: keyId, prefix: '', headers: { authorization: `Bearer ${key}` } });
    this.acked({ op: 'key.issue', grain: 'keys', kind: 'key.issued', subject: keyId, stream: { name: `keyhash:${SHA(key)}`, version: 1 } });
  }

  private async declareOffers(tenant: Grain): Promise<boolean> {
    const n = (tenant.offers ?? 0) + 1;
    const offers = Array.from({ length: Math.min(n, 5) }, (_, i) => ({ id: `of_load_${n - i}`, title: `Provisional filing, offer ${n - i}`, priceUsd: 150 + ((n - i) % 50), matterType: 'patent_provisional' }));
    const headers = this.idempotency();
    const payload = JSON.stringify(offers);
    const path = `${tenant.prefix}/offers`;
    const res = await this.send('tenant.offers', 'PUT', path, { raw: payload, headers });
    if (res.status !== 200) return true;
    tenant.offers = n;
    this.acked({ op: 'tenant.offers', grain: tenant.id, seq: res.body.declaredSeq, kind: 'tenant.offers.declared', subject: tenant.id, replay: this.replayOf('PUT', path, headers, payload, res) });
    return true;
  }

  private async declareTenantRouting(tenant: Grain): Promise<boolean> {
    const headers = this.idempotency();
    const payload = JSON.stringify({ maxFeeUsd: 1000 + Math.floor(this.rng() * 1000) });
    const path = `${tenant.prefix}/routing`;
    const res = await this.send('tenant.routing', 'PUT', path, { raw: payload, headers });
    if (res.status !== 200) return true;
    this.acked({ op: 'tenant.routing', grain: tenant.id, seq: res.body.declaredSeq, kind: 'tenant.routing.declared', subject: tenant.id, replay: this.replayOf('PUT', path, headers, payload, res) });
    return true;
  }

  private async createMatter(grain: Grain, op: string): Promise<boolean> {
    const sandbox = grain.kind !== 'key';
    const roll = this.rng();
    const flavour: Flavour = sandbox && grain.kind === 'workspace' ? (roll < 0.15 ? 'ack-due' : roll < 0.4 ? 'fulfilling' : 'plain') : 'plain';
    const n = this.ackCount;
    const body: Record<string, unknown> =
      grain.kind === 'tenant'
        ? { offer: `of_load_${(grain.offers ?? 1) - Math.floor(this.rng() * Math.min(grain.offers ?? 1, 5))}`, client: { name: `Load Client ${n}` } }
        : {
            matterType: 'patent_provisional',
            client: { name: flavour === 'fulfilling' ? FULFILLING_CLIENT : `Load Client ${n}` },
            asset: { kind: 'patent_application', title: `${flavour === 'ack-due' ? `${ACK_DUE_PREFIX} ` : ''}Load invention ${n}` },
          };
    const headers = { ...grain.headers, ...this.idempotency() };
    const payload = JSON.stringify(body);
    const path = `${grain.prefix}/matters`;
    const res = await this.send(op, 'POST', path, { raw: payload, headers });
    if (res.status !== 201) return true;
    const matter = res.body.matter;
    const ladder = res.body.asset.deadlineLadder;
    const m: MatterRef = {
      id: matter.id,
      assetId: matter.assetId,
      grain,
      flavour,
      status: matter.status,
      version: matter.version,
      stale: false,
      ladder: { days: ladder.daysUntilDeadline, ackDue: ladder.ackRequiredToday, closed: false, stale: false },
    };
    this.matters.set(m.id, m);
    this.live.add(m);
    (flavour === 'ack-due' ? this.finalWeeks : this.ladders).add(m);
    this.touched.add(m.id);
    this.acked({ op, grain: grain.id, seq: res.body.asset.docket[0].seq, kind: 'matter.opened', subject: m.id, replay: this.replayOf('POST', path, headers, payload, res) });
    return true;
  }

  private async advance(m: MatterRef): Promise<void> {
    const headers = { ...m.grain.headers, ...this.idempotency() };
    const payload = JSON.stringify({ note: `load ${this.requests}` });
    const path = `${m.grain.prefix}/matters/${m.id}/advance`;
    this.touched.add(m.id);
    const res = await this.send('advance', 'POST', path, { raw: payload, headers });
    if (res.status !== 200) {
      m.stale = true;
      return;
    }
    const matter = res.body.matter;
    this.observeMatter(m.id, matter);
    const committed = res.body.committed;
    const escalated = res.body.escalated;
    const replay = this.replayOf('POST', path, headers, payload, res);
    if (committed) {
      this.acked({ op: 'advance', grain: m.grain.id, kind: 'stage', subject: m.id, matter: { id: m.id, version: matter.version, verb: committed.advanceTo }, replay });
    } else if (escalated) {
      this.acked({ op: 'advance', grain: m.grain.id, kind: 'gig.posted', subject: m.id, matter: { id: m.id, version: matter.version, gigId: escalated.gigId }, replay });
    } else {
      // A 200 with neither: note it as a fault of the contract, to be looked at.
      this.faults.push({ op: 'advance', method: 'POST', path, status: res.status, body: res.text.slice(0, 2000) });
    }
  }

  private async gigResult(m: MatterRef): Promise<void> {
    const gigId = m.pendingGigId!;
    const path = `${m.grain.prefix}/matters/${m.id}/gig-result`;
    this.touched.add(m.id);
    const artifactHash = `sha256:${SHA(`${m.id}/${gigId}`)}`;
    let res: Answer;
    let payload: string;
    let headers: Record<string, string>;
    if (m.grain.kind === 'key') {
      // The supply network's callback: signed, never keyed.
      payload = JSON.stringify({ gigId, outcome: 'attested', attestation: { signedBy: this.operator.signer.signerId, credentialRef: this.operator.signer.credentialRef, artifactHash } });
      const id = `msg_${randomUUID()}`;
      const at = new Date();
      headers = { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(this.operator.secret).sign(id, at, payload) };
    } else {
      payload = JSON.stringify({ gigId, outcome: 'attested', attestation: { ...FIXTURE_ATTESTATION, artifactHash } });
      headers = this.idempotency();
    }
    res = await this.send('gig-result', 'POST', path, { raw: payload, headers });
    if (res.status !== 200) {
      m.stale = true;
      return;
    }
    this.observeMatter(m.id, res.body.matter);
    this.acked({ op: 'gig-result', grain: m.grain.id, kind: 'stage', subject: m.id, matter: { id: m.id, version: res.body.matter.version, gigId, by: 'signer' }, replay: this.replayOf('POST', path, headers, payload, res) });
  }

  private async document(m: MatterRef): Promise<void> {
    const headers = { ...m.grain.headers, ...this.idempotency() };
    const payload = JSON.stringify({ name: `load-${this.requests}.pdf`, kind: 'spec', sha256: SHA(`${m.id}/${this.requests}`) });
    const path = `${m.grain.prefix}/matters/${m.id}/documents`;
    this.touched.add(m.id);
    const res = await this.send('document', 'POST', path, { raw: payload, headers });
    if (res.status !== 201) {
      m.stale = true;
      return;
    }
    this.acked({ op: 'document', grain: m.grain.id, kind: 'document.recorded', subject: m.id, matter: { id: m.id, documentId: res.body.document.id }, replay: this.replayOf('POST', path, headers, payload, res) });
  }

  private async tick(m: MatterRef): Promise<void> {
    const headers = { ...m.grain.headers, ...this.idempotency() };
    const payload = JSON.stringify({ days: 1 });
    const path = `${m.grain.prefix}/deadlines/${m.assetId}/tick`;
    const res = await this.send('tick', 'POST', path, { raw: payload, headers });
    if (res.status !== 200) {
      m.ladder.stale = true;
      return;
    }
    m.ladder.days = res.body.daysUntilDeadline;
    m.ladder.ackDue = res.body.ackRequiredToday;
    this.acked({ op: 'tick', grain: m.grain.id, seq: res.body.seq, kind: 'ladder.ticked', subject: m.assetId, replay: this.replayOf('POST', path, headers, payload, res) });
  }

  /** The final week of an ack-due ladder: ack today's rung, else tick a day, and at 0 resolve it. */
  private async ackOrResolve(m: MatterRef): Promise<void> {
    if (!m.ladder.ackDue && m.ladder.days > 0) return this.tick(m);
    const headers = { ...m.grain.headers, ...this.idempotency() };
    const at0 = !m.ladder.ackDue && m.ladder.days === 0;
    const op = at0 ? 'resolve' : 'ack';
    const payload = JSON.stringify(at0 ? { outcome: this.pick(['clientNotice', 'extensionPurchase', 'proSeHandoff', 'outsideCounselHandoff']) } : { actor: `Docketing clerk ${this.requests % 7}` });
    const path = `${m.grain.prefix}/deadlines/${m.assetId}/${op}`;
    const res = await this.send(op, 'POST', path, { raw: payload, headers });
    if (res.status !== 200) {
      m.ladder.stale = true;
      return;
    }
    if (at0) this.retireLadder(m);
    else m.ladder.ackDue = false;
    this.acked({ op, grain: m.grain.id, seq: res.body.seq, kind: at0 ? 'ladder.resolved' : 'ladder.acked', subject: m.assetId, replay: this.replayOf('POST', path, headers, payload, res) });
  }

  private async enrollment(): Promise<boolean> {
    const firm = this.pick(this.grains.filter((g) => g.kind === 'firm'));
    if (!firm) return false;
    const memberId = this.pick(MEMBERS)!;
    const key = `${firm.id}/${memberId}`;
    await this.lease(key, async () => {
      let member = this.members.get(key) ?? { live: false, grants: [], stale: false };
      this.members.set(key, member);
      if (member.stale) {
        const list = await this.send('read', 'GET', `${firm.prefix}/enrollments`);
        const row = (list.body?.results ?? []).find((r: { memberId: string }) => r.memberId === memberId);
        member = { live: !!row && row.status !== 'revoked', grants: row?.grants ?? [], stale: false };
        this.members.set(key, member);
      }
      const headers = this.idempotency();
      if (member.live && member.grants.length === GRANTS.length) {
        const path = `${firm.prefix}/enrollments/${memberId}/revoke`;
        const payload = JSON.stringify({ reason: 'load' });
        const res = await this.send('firm.revoke', 'POST', path, { raw: payload, headers });
        if (res.status !== 200) return void (member.stale = true);
        member.live = false;
        member.grants = [];
        this.acked({ op: 'firm.revoke', grain: firm.id, seq: res.body.revocation.seq, kind: 'enrollment.revoked', subject: res.body.enrollment.enrollmentId, replay: this.replayOf('POST', path, headers, payload, res) });
        return;
      }
      const grants = member.live ? GRANTS.slice(0, member.grants.length + 1) : ['roster'];
      const path = `${firm.prefix}/enrollments`;
      const payload = JSON.stringify({ memberId, grants });
      const res = await this.send('firm.enroll', 'POST', path, { raw: payload, headers });
      if (res.status !== 201) return void (member.stale = true);
      const c = res.body.ceremony;
      this.acked({ op: 'firm.enroll', grain: firm.id, seq: c.seq, kind: c.instrument === 'amendment' ? 'enrollment.amended' : 'enrollment.opened', subject: c.enrollmentId, replay: this.replayOf('POST', path, headers, payload, res) });
      member.live = res.body.enrollment.status !== 'revoked';
      member.grants = res.body.enrollment.grants;
      if (res.body.then) {
        // mb_fixture_revoking revokes its own Enrollment in a second commit, answered with the first.
        this.acked({ op: 'firm.enroll', grain: firm.id, seq: res.body.then.seq, kind: 'enrollment.revoked', subject: c.enrollmentId });
        member.live = false;
        member.grants = [];
      }
    });
    return true;
  }

  private async conflictsEntry(): Promise<boolean> {
    const firm = this.pick(this.grains.filter((g) => g.kind === 'firm'));
    if (!firm) return false;
    const headers = this.idempotency();
    const path = `${firm.prefix}/conflicts/entries`;
    const payload = JSON.stringify({ nameHash: SHA(`party ${this.requests} ${this.rng()}`) });
    const res = await this.send('firm.conflicts', 'POST', path, { raw: payload, headers });
    if (res.status === 201) this.acked({ op: 'firm.conflicts', grain: firm.id, seq: res.body.entry.seq, kind: 'conflicts.entry', subject: firm.id, replay: this.replayOf('POST', path, headers, payload, res) });
    return true;
  }

  private async firmRouting(): Promise<boolean> {
    const firm = this.pick(this.grains.filter((g) => g.kind === 'firm'));
    if (!firm) return false;
    await this.lease(`routing:${firm.id}`, async () => {
      const headers = this.idempotency();
      const path = `${firm.prefix}/routing`;
      const day = this.pick(['mon', 'tue', 'wed', 'thu', 'fri'])!;
      const payload = JSON.stringify({ participationWindows: [{ day, from: '09:00', to: `1${Math.floor(this.rng() * 8) + 1}:00` }], remittanceDesignation: 'individual' });
      const res = await this.send('firm.routing', 'PUT', path, { raw: payload, headers });
      if (res.status === 200) this.acked({ op: 'firm.routing', grain: firm.id, seq: res.body.declaredSeq, kind: 'firm.routing.declared', subject: firm.id, replay: this.replayOf('PUT', path, headers, payload, res) });
    });
    return true;
  }

  private async read(): Promise<boolean> {
    if (this.chance(0.5)) {
      const m = this.pick(this.live.items) ?? this.pick(this.ladders.items);
      if (!m) return false;
      await this.send('read', 'GET', `${m.grain.prefix}/matters/${m.id}`);
    } else {
      const g = this.pick(this.grains)!;
      await this.send('read', 'GET', `${g.prefix}/events?limit=50`, { headers: g.headers });
    }
    return true;
  }
}

/**
 * Finds where a Matter write's fact stands in the Matter's journal (as
 * `GET …/matters/{id}` serves it): the entry the answer committed, or null
 * when the journal does not hold it.
 */
export function locate(ack: Ack, journal: Array<{ seq: number; kind: string; verb?: string; by?: string; data?: any }>): { seq: number; kind: string } | null {
  const w = ack.matter;
  if (!w) return null;
  if (w.version !== undefined && journal.length < w.version) return null;
  if (w.verb !== undefined) {
    const e = journal[w.version! - 1];
    return e && e.kind === 'stage' && e.verb === w.verb ? e : null;
  }
  if (w.gigId !== undefined) {
    const upTo = journal.slice(0, w.version);
    const e = w.by ? upTo.find((x) => x.by === w.by && x.data?.gigId === w.gigId) : upTo.find((x) => x.kind === 'gig.posted' && x.data?.gigId === w.gigId);
    return e ?? null;
  }
  if (w.documentId !== undefined) return journal.find((x) => x.kind === 'document.recorded' && x.data?.document?.id === w.documentId) ?? null;
  return null;
}
