/**
 * Webhooks (decisions.md, "Webhooks"): endpoints a grain's owner registers,
 * and the durable delivery of the events its journal derives.
 *
 * - An endpoint is a stream of its own in a grain no route serves
 *   (`webhooks`): its registration (with the signing secret, which only the
 *   201 shows), every delivery attempt, and its disabling. Everything below
 *   is derived from that stream and from the owner's tail.
 * - Each endpoint has one worker. It reads the owner grain's tail in journal
 *   order, after the last event it finished, derives the webhook events of
 *   each fact (`domain/webhook-events.ts`) and delivers each in turn: at
 *   least once, in journal order, retried on a non-2xx or no answer after
 *   5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then given up. An endpoint
 *   whose deliveries have failed for 5 days in a row is disabled.
 * - Only committed facts are read (the tail holds nothing else), so nothing
 *   is sent for an uncommitted write; a restart (SIGKILL included) folds each
 *   endpoint's attempts back and resumes where it stood, the retry clock
 *   included.
 * - The write path only wakes a worker (a map lookup per commit): a slow or
 *   dead receiver holds its own worker, nothing else.
 * - On a journal several processes share, every process knows every
 *   endpoint (it follows the `webhooks` grain as other processes write it),
 *   and one delivers to each: the holder of the endpoint's lease (a row
 *   with an expiry, renewed while held: `journal/postgres-leases.ts`). When
 *   that process dies or stalls, its leases expire (`LEASE_SECONDS`), and
 *   another live process takes them at its next claim (every
 *   `LEASE_POLL_MS`), folds the endpoint's stream and resumes where it
 *   stood: an event whose attempt was cut short is sent again under the
 *   same `webhook-id`, which is how a receiver knows it for a repeat.
 * - What a process holds is bounded per owner: at most
 *   `ENABLED_ENDPOINTS_PER_OWNER` enabled endpoints (one more is refused,
 *   `WEBHOOK_ENDPOINT_LIMIT`), and the `DISABLED_ENDPOINTS_KEPT` disabled
 *   most recently; an older disabled endpoint is read from its stream when
 *   asked for by id. The endpoints of a sandbox grain that has expired are
 *   let go (`sweepExpired`): no door reaches them, and the grain writes
 *   nothing more.
 */
import { randomBytes } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { Webhook } from 'standardwebhooks';
import { newId } from '../domain/ids.ts';
import { matterView, factsOf } from '../domain/matter-view.ts';
import { refusal } from '../domain/refusals.ts';
import { subscribes, webhookEventId, webhookTypesOf, type WebhookEventType, type WebhookSubscription } from '../domain/webhook-events.ts';
import { webhookUrlProblem, type WebhookUrlPolicy } from '../domain/webhook-url.ts';
import { sha256Hex } from '../domain/hash.ts';
import { HELD_BY } from '../journal/retention.ts';
import { eachStreamHead, VersionConflict, type JournalEvent } from '../journal/store.ts';
import type { WebhookBody } from '../schemas/webhooks.ts';
import { Entity } from './entity.ts';
import { sandboxKindOf } from './grains.ts';
import { asBookkeeping } from './idempotency.ts';
import { MATTER } from './matters.ts';
import type { Supervisor } from './supervisor.ts';
import { unreadableRefusal } from './unreadable.ts';
import { tracing } from '../lib/telemetry.ts';
import { webhookDeliveries } from './engine-metrics.ts';
import { httpTransport, type Attempted, type WebhookTransport } from './webhook-transport.ts';

/** The grain of endpoint streams; no route resolves to it. */
export const WEBHOOKS_GRAIN = 'webhooks';

/** After the first attempt, when each retry follows the one before (decisions.md). */
export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
/** An endpoint failing this long in a row is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;
/** How long one attempt may take. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How many tail events a worker reads at a time. */
const TAIL_PAGE = 200;
/** How often a process tries to take the leases of endpoints no process delivers to (a journal several processes share). */
export const LEASE_POLL_MS = 2_000;
/** How many times an endpoint fact is journaled again after another process wrote the stream first. */
const STALE_RETRIES = 5;
/** Enabled endpoints an owner (a key's owner, a sandbox grain) may have at once; Stripe allows 16 an account. */
export const ENABLED_ENDPOINTS_PER_OWNER = 16;
/** Disabled endpoints kept in memory per owner, the most recently disabled; `GET /webhooks` lists these beside the enabled ones. */
export const DISABLED_ENDPOINTS_KEPT = 32;
/** How often the endpoints of expired sandbox grains are looked for. */
const EXPIRY_SWEEP_MS = 60_000;

export interface WebhookOptions {
  /** Multiplies the retry schedule and the disabling window (tests run them in milliseconds). */
  timeScale?: number;
  timeoutMs?: number;
  /** LEGALWORK_WEBHOOK_ALLOW_PRIVATE=1: top-level endpoints may be http:// and private, for local development. */
  allowPrivate?: boolean;
  transport?: WebhookTransport;
  /** Wall clock, ms. */
  now?: () => number;
  /** The clock sandbox grains expire by (ms); default `now`. */
  grainNow?: () => number;
}

/** What registering an endpoint takes, as its schema states it. */
export type EndpointRequest = Static<typeof WebhookBody>;

export interface Endpoint {
  id: string;
  ownerGrain: string;
  url: string;
  events: WebhookSubscription[];
  description?: string;
  secret: string;
  createdAt: string;
  /** The owner grain's seq when it was registered: it is sent what happens after. */
  fromSeq: number;
  disabled: { at: string; reason: string } | null;
}

/** One delivery attempt, as journaled. */
export interface AttemptRecord {
  deliveryId: string;
  eventId: string;
  type: WebhookEventType;
  source: { grain: string; seq: number };
  attempt: number;
  redelivery: boolean;
  outcome: 'delivered' | 'failed';
  /** Its event is finished with: delivered, or given up after the last retry. */
  final: boolean;
  responseStatus: number | null;
  durationMs: number;
  responseBody: string;
  error?: string;
  attemptedAt: string;
}

interface Worker {
  endpoint: Endpoint;
  stream: string;
  version: number;
  /** Tail seq up to which every event is finished with. */
  cursor: number;
  /** Events finished with at the cursor's fact or after it (a fact may be two events). */
  finished: Set<string>;
  /** Attempts made so far of an unfinished event, and when the last was. */
  tried: Map<string, { attempts: number; lastAt: number }>;
  failingSince: number | null;
  /** This process delivers to the endpoint: it holds its lease (always, on a journal no other process writes). */
  leased: boolean;
  running: boolean;
  again: boolean;
  /** Wakes a worker waiting out a retry when it is closed. */
  sleeping: { timer: NodeJS.Timeout; wake: () => void } | null;
}

const streamOf = (id: string) => `webhook:${id}`;
export const deliveryIdOf = (endpointId: string, eventId: string) => `dl_${sha256Hex(`${endpointId}\n${eventId}`).slice(0, 32)}`;
const notFound = (id: string) => refusal('WEBHOOK_NOT_FOUND', { webhookEndpointId: id });

export class Webhooks {
  private readonly workers = new Map<string, Worker>();
  /** Endpoint ids by owner grain: what a commit wakes. */
  private readonly byOwner = new Map<string, Set<string>>();
  private readonly transport: WebhookTransport;
  private readonly scale: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private closed = false;
  /** How far this process has followed the `webhooks` grain that other processes write too. */
  private followed = 0;
  private following: Promise<void> = Promise.resolve();
  private claiming: Promise<void> | null = null;
  private claimAgain = false;
  private readonly leaseTimer: NodeJS.Timeout | null = null;
  private readonly expirySweep: NodeJS.Timeout;
  /** When each sandbox grain that owns endpoints expires (ms), read once from its opening. */
  private readonly grainExpiry = new Map<string, number>();

  constructor(
    private readonly supervisor: Supervisor,
    private readonly options: WebhookOptions = {},
  ) {
    this.transport = options.transport ?? httpTransport;
    this.scale = options.timeScale ?? 1;
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.now = options.now ?? Date.now;
    this.expirySweep = setInterval(() => void this.sweepExpired().catch(() => undefined), EXPIRY_SWEEP_MS);
    this.expirySweep.unref();
    supervisor.bus.on('committed', (written: JournalEvent[]) => {
      if (this.byOwner.size === 0) return;
      for (const grain of new Set(written.map((e) => e.grain))) this.wakeOwnedBy(grain);
    });
    const shared = supervisor.journal.shared;
    if (!shared) return;
    supervisor.bus.on('committedElsewhere', (grain) => {
      if (grain === null || grain === WEBHOOKS_GRAIN) this.follow();
      if (grain === null) for (const worker of this.workers.values()) this.wake(worker);
      else this.wakeOwnedBy(grain);
    });
    // Taken from this process (it stalled past the expiry): it stops before its next attempt, and claims them again once free.
    shared.onLeasesLost((names) => {
      const lost = new Set(names);
      for (const worker of this.workers.values()) if (lost.has(worker.stream)) worker.leased = false;
    });
    this.leaseTimer = setInterval(() => this.claimLeases(), LEASE_POLL_MS);
    this.leaseTimer.unref();
  }

  private wakeOwnedBy(grain: string): void {
    for (const id of this.byOwner.get(grain) ?? []) this.wake(this.workers.get(id)!);
  }

  /** Takes the leases this process can (`claimFree`), one claim at a time; a call while one runs has it run once more. */
  private claimLeases(): void {
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = (async () => {
      do {
        this.claimAgain = false;
        await this.claimFree().catch(() => undefined);
      } while (this.claimAgain && !this.closed);
      this.claiming = null;
    })();
  }

  /** Takes the leases of enabled endpoints no process delivers to; each taken is brought up to its stream, then run. */
  private async claimFree(): Promise<void> {
    const shared = this.supervisor.journal.shared;
    const free = [...this.workers.values()].filter((w) => !w.leased && !w.endpoint.disabled);
    if (!shared || this.closed || free.length === 0) return;
    const taken = await shared.tryLeases(free.map((w) => w.stream));
    for (const worker of free) {
      if (!taken.has(worker.stream)) continue;
      await this.catchUp(worker).catch(() => undefined);
      worker.leased = true;
      this.wake(worker);
    }
  }

  /** Folds what other processes journaled on the endpoint's stream since this process last read it. */
  private async catchUp(worker: Worker): Promise<void> {
    this.fold(worker, await this.supervisor.journal.readStream(worker.stream));
  }

  /**
   * Reads the `webhooks` grain after where this process stands: endpoints
   * other processes registered are adopted, and their attempts and disablings
   * folded. One read at a time, in order.
   */
  private follow(): void {
    this.following = this.following.then(async () => {
      for (;;) {
        const page = await this.supervisor.journal.readTail(WEBHOOKS_GRAIN, { after: this.followed, limit: TAIL_PAGE, feed: 'timeline' });
        for (const e of page) {
          // A fact whose body does not read is passed over: there is nothing in it to fold.
          const worker = e.unreadable ? null : this.workers.get(e.subject);
          if (worker === undefined && e.kind === 'webhook.endpoint.created') this.adopt(await this.supervisor.journal.readStream(e.stream));
          else if (worker && e.version === worker.version + 1) this.fold(worker, [e]);
          else if (worker && e.version > worker.version) await this.catchUp(worker);
          this.followed = e.seq;
        }
        if (page.length < TAIL_PAGE) return;
      }
    }).catch(() => undefined);
  }

  private policyOf(ownerGrain: string): WebhookUrlPolicy {
    return { sandbox: sandboxKindOf(ownerGrain) !== null, allowPrivate: this.options.allowPrivate === true };
  }

  /**
   * Loads every endpoint and resumes its deliveries (at start-up). Runs
   * beside the service, so it never throws: a journal closed under it ends
   * it, and the next start resumes again.
   */
  async resume(): Promise<void> {
    try {
      // Read first: whatever other processes write to the grain from here on is followed (`follow`).
      this.followed = await this.supervisor.journal.latestSeq(WEBHOOKS_GRAIN);
      for await (const head of eachStreamHead(this.supervisor.journal, WEBHOOKS_GRAIN, 'webhook.endpoint.created')) {
        if (this.closed) return;
        if (!this.workers.has(String(head.data.id))) this.adopt(await this.supervisor.journal.readStream(head.stream));
      }
      await this.sweepExpired();
    } catch {
      // The journal closed under it (a stop): nothing to resume into.
    }
  }

  /**
   * Registers an endpoint; the answer is the only place its secret is shown.
   * One owner's registrations are serialized (across processes too), each
   * counting the owner's enabled endpoints after reading what other
   * processes registered, so the cap holds exactly.
   */
  async create(ownerGrain: string, request: EndpointRequest): Promise<Endpoint> {
    const problem = await webhookUrlProblem(request.url, this.policyOf(ownerGrain));
    if (problem) throw refusal('WEBHOOK_URL_REFUSED', { url: request.url, why: problem, sandbox: this.policyOf(ownerGrain).sandbox });
    return this.supervisor.exclusive(`webhooks-of:${ownerGrain}`, async () => {
      if (this.supervisor.journal.shared) {
        this.follow();
        await this.following;
      }
      const enabled = this.list(ownerGrain).filter((e) => !e.disabled).length;
      if (enabled >= ENABLED_ENDPOINTS_PER_OWNER) throw refusal('WEBHOOK_ENDPOINT_LIMIT', { limit: ENABLED_ENDPOINTS_PER_OWNER });
      return this.register(ownerGrain, request);
    });
  }

  private async register(ownerGrain: string, request: EndpointRequest): Promise<Endpoint> {
    const id = newId('wh');
    const data = {
      id,
      ownerGrain,
      url: request.url,
      events: [...new Set(request.events)],
      ...(request.description !== undefined ? { description: request.description } : {}),
      secret: `whsec_${randomBytes(24).toString('base64')}`,
      fromSeq: await this.supervisor.journal.latestSeq(ownerGrain),
      // A sandbox grain's endpoint, with its deliveries, is purged with the grain (journal/retention.ts).
      ...(sandboxKindOf(ownerGrain) ? { [HELD_BY]: ownerGrain } : {}),
    };
    const written = await this.supervisor.openStream(WEBHOOKS_GRAIN, streamOf(id), { kind: 'webhook.endpoint.created', by: 'gate', note: `webhook endpoint ${id} registered`, data }, id);
    return this.adopt(written).endpoint;
  }

  list(ownerGrain: string): Endpoint[] {
    return [...(this.byOwner.get(ownerGrain) ?? [])].map((id) => this.workers.get(id)!.endpoint);
  }

  async get(ownerGrain: string, id: string): Promise<Endpoint> {
    return (await this.workerOf(ownerGrain, id)).endpoint;
  }

  /** Endpoints held in memory (enabled ones, and the disabled kept): what `DISABLED_ENDPOINTS_KEPT` and the expiry sweep bound. */
  get held(): number {
    return this.workers.size;
  }

  /** Stops deliveries to an endpoint for good (journaled); disabling a disabled endpoint changes nothing. */
  async disable(ownerGrain: string, id: string, reason = 'disabled by its owner'): Promise<Endpoint> {
    const worker = await this.workerOf(ownerGrain, id);
    await this.disableWorker(worker, reason);
    return worker.endpoint;
  }

  /** An endpoint's attempts, newest first, `before` the given record position. */
  async attempts(ownerGrain: string, id: string, page: { before?: number; limit: number }) {
    const worker = await this.workerOf(ownerGrain, id);
    const records = (await this.supervisor.journal.readStream(worker.stream)).filter((e) => e.kind === 'webhook.attempt' && (page.before === undefined || e.version < page.before)).reverse();
    const shown = records.slice(0, page.limit);
    const attempts = shown.map((e) => {
      const { source, ...attempt } = e.data as unknown as AttemptRecord;
      return { ...attempt, seq: source.seq, position: e.version };
    });
    return { attempts, nextBefore: records.length > page.limit ? shown[shown.length - 1].version : null };
  }

  /** Sends an event of a delivery again, now, beside the ordered deliveries; answers the event it sends. */
  async redeliver(ownerGrain: string, id: string, deliveryId: string): Promise<{ deliveryId: string; eventId: string; type: WebhookEventType }> {
    const worker = await this.workerOf(ownerGrain, id);
    if (worker.endpoint.disabled) throw refusal('WEBHOOK_DISABLED', { webhookEndpointId: id, reason: worker.endpoint.disabled.reason });
    const first = (await this.supervisor.journal.readStream(worker.stream)).find((e) => e.kind === 'webhook.attempt' && e.data.deliveryId === deliveryId);
    if (!first) throw refusal('WEBHOOK_DELIVERY_NOT_FOUND', { webhookEndpointId: id, deliveryId });
    const record = first.data as unknown as AttemptRecord;
    const [fact] = await this.supervisor.journal.readTail(record.source.grain, { after: record.source.seq - 1, limit: 1, feed: 'timeline' });
    // No event can be derived from a fact whose body no longer reads: said now, rather than a 202 for an attempt that sends nothing.
    if (fact.unreadable) throw unreadableRefusal(fact.stream, fact.unreadable);
    asBookkeeping(() => void this.attempt(worker, fact, record.type, 1, true).catch(() => undefined));
    return { deliveryId, eventId: record.eventId, type: record.type };
  }

  close(): void {
    this.closed = true;
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    clearInterval(this.expirySweep);
    for (const worker of this.workers.values()) {
      if (worker.sleeping) {
        clearTimeout(worker.sleeping.timer);
        worker.sleeping.wake();
      }
    }
  }

  /** The owner's endpoint: held in memory, or (a disabled one no longer kept) folded from its stream, never started. */
  private async workerOf(ownerGrain: string, id: string): Promise<Worker> {
    let worker = this.workers.get(id);
    if (!worker) {
      const stream = await this.supervisor.journal.readStream(streamOf(id));
      if (stream[0]?.kind === 'webhook.endpoint.created') worker = this.workerFrom(stream);
    }
    if (!worker || worker.endpoint.ownerGrain !== ownerGrain) throw notFound(id);
    return worker;
  }

  private workerFrom(stream: JournalEvent[]): Worker {
    const created = stream[0];
    const endpoint = { ...(created.data as unknown as Omit<Endpoint, 'createdAt' | 'disabled'>), createdAt: created.at, disabled: null } as Endpoint;
    const worker: Worker = { endpoint, stream: created.stream, version: 0, cursor: endpoint.fromSeq, finished: new Set(), tried: new Map(), failingSince: null, leased: !this.supervisor.journal.shared, running: false, again: false, sleeping: null };
    this.fold(worker, stream);
    return worker;
  }

  /** A worker folded from an endpoint's stream and held, started unless the endpoint is disabled. */
  private adopt(stream: JournalEvent[]): Worker {
    const worker = this.workerFrom(stream);
    const { endpoint } = worker;
    this.workers.set(endpoint.id, worker);
    let owned = this.byOwner.get(endpoint.ownerGrain);
    if (!owned) this.byOwner.set(endpoint.ownerGrain, (owned = new Set()));
    owned.add(endpoint.id);
    if (endpoint.disabled) this.trimDisabled(endpoint.ownerGrain);
    else if (worker.leased) this.wake(worker);
    else this.claimLeases();
    return worker;
  }

  /** Lets go of an endpoint: its deliveries stop, and its lease is handed back. Its stream stays the record. */
  private letGo(worker: Worker): void {
    const { id, ownerGrain } = worker.endpoint;
    if (this.workers.get(id) !== worker) return;
    this.workers.delete(id);
    const owned = this.byOwner.get(ownerGrain);
    owned?.delete(id);
    if (owned?.size === 0) {
      this.byOwner.delete(ownerGrain);
      this.grainExpiry.delete(ownerGrain);
    }
    worker.leased = false;
    worker.sleeping?.wake();
    void this.supervisor.journal.shared?.releaseLeases([worker.stream]).catch(() => undefined);
  }

  /** Keeps the owner's `DISABLED_ENDPOINTS_KEPT` disabled most recently; older ones are read from the journal when asked for. */
  private trimDisabled(ownerGrain: string): void {
    const disabled = [...(this.byOwner.get(ownerGrain) ?? [])].map((id) => this.workers.get(id)!).filter((w) => w.endpoint.disabled);
    if (disabled.length <= DISABLED_ENDPOINTS_KEPT) return;
    disabled.sort((a, b) => Date.parse(a.endpoint.disabled!.at) - Date.parse(b.endpoint.disabled!.at) || a.version - b.version);
    for (const worker of disabled.slice(0, disabled.length - DISABLED_ENDPOINTS_KEPT)) this.letGo(worker);
  }

  /** Lets go of the endpoints of every sandbox grain that has expired (at the start, then every minute). */
  async sweepExpired(): Promise<void> {
    const now = (this.options.grainNow ?? this.now)();
    for (const ownerGrain of [...this.byOwner.keys()]) {
      if (this.closed) return;
      if (sandboxKindOf(ownerGrain) === null) continue;
      let expiresAt = this.grainExpiry.get(ownerGrain);
      if (expiresAt === undefined) {
        const [opened] = await this.supervisor.journal.readStream(ownerGrain);
        expiresAt = Date.parse(String(opened?.data.expiresAt));
        if (Number.isNaN(expiresAt)) continue;
        this.grainExpiry.set(ownerGrain, expiresAt);
      }
      if (expiresAt > now) continue;
      for (const id of [...(this.byOwner.get(ownerGrain) ?? [])]) this.letGo(this.workers.get(id)!);
    }
  }

  /** Takes journaled endpoint facts into the worker's state. */
  private fold(worker: Worker, events: JournalEvent[]): void {
    for (const e of events) {
      // Already folded: this process wrote it, or read it before.
      if (e.version <= worker.version) continue;
      worker.version = e.version;
      if (e.kind === 'webhook.endpoint.disabled') {
        worker.endpoint.disabled = { at: e.at, reason: String(e.data.reason) };
        worker.sleeping?.wake();
        if (this.workers.get(worker.endpoint.id) === worker) this.trimDisabled(worker.endpoint.ownerGrain);
      }
      if (e.kind !== 'webhook.attempt') continue;
      const a = e.data as unknown as AttemptRecord;
      if (a.redelivery) continue;
      const at = Date.parse(a.attemptedAt);
      worker.failingSince = a.outcome === 'delivered' ? null : (worker.failingSince ?? at);
      if (!a.final) {
        worker.tried.set(a.eventId, { attempts: a.attempt, lastAt: at });
        continue;
      }
      worker.tried.delete(a.eventId);
      if (a.source.seq - 1 > worker.cursor) {
        worker.cursor = a.source.seq - 1;
        worker.finished.clear();
      }
      worker.finished.add(a.eventId);
    }
  }

  /** Runs the worker, or has it look again once it finishes what it is at. Never in a request's context: its writes are its own. */
  private wake(worker: Worker): void {
    if (this.closed || worker.endpoint.disabled || !worker.leased) return;
    if (worker.running) {
      worker.again = true;
      return;
    }
    asBookkeeping(() => void this.pump(worker).catch(() => undefined));
  }

  private async pump(worker: Worker): Promise<void> {
    worker.running = true;
    try {
      do {
        worker.again = false;
        for (;;) {
          const page = await this.supervisor.journal.readTail(worker.endpoint.ownerGrain, { after: worker.cursor, limit: TAIL_PAGE, feed: 'timeline' });
          for (const fact of page) {
            // A fact whose body does not read derives no event (its tail entry says it is unreadable).
            for (const type of fact.unreadable ? [] : webhookTypesOf(fact)) {
              if (!subscribes(worker.endpoint.events, type) || worker.finished.has(webhookEventId(fact, type))) continue;
              if (!(await this.deliver(worker, fact, type))) return;
            }
            worker.cursor = fact.seq;
            worker.finished.clear();
          }
          if (page.length < TAIL_PAGE) break;
        }
      } while (worker.again && !this.closed);
    } finally {
      worker.running = false;
    }
  }

  /** Delivers one event with its retries; false when the worker stopped (closed, or the endpoint disabled). */
  private async deliver(worker: Worker, fact: JournalEvent, type: WebhookEventType): Promise<boolean> {
    const eventId = webhookEventId(fact, type);
    for (;;) {
      if (this.closed || worker.endpoint.disabled || !worker.leased) return false;
      const tried = worker.tried.get(eventId);
      if (tried) await this.sleep(worker, tried.lastAt + RETRY_SCHEDULE_MS[tried.attempts - 1] * this.scale - this.now());
      if (this.closed || worker.endpoint.disabled || !worker.leased) return false;
      const record = await this.attempt(worker, fact, type, (tried?.attempts ?? 0) + 1, false);
      if (record.final) return true;
      if (worker.failingSince !== null && this.now() - worker.failingSince >= DISABLE_AFTER_MS * this.scale) {
        await this.disableWorker(worker, `every delivery failed for ${Math.round((DISABLE_AFTER_MS * this.scale) / 3_600_000)} hours in a row`);
        return false;
      }
    }
  }

  /** One attempt, journaled (and folded) once it is over; traced as a child of the command that journaled the fact. */
  private attempt(worker: Worker, fact: JournalEvent, type: WebhookEventType, attempt: number, redelivery: boolean): Promise<AttemptRecord> {
    return tracing.span(
      'webhook POST',
      { 'http.request.method': 'POST', 'legalwork.webhook.event_type': type, 'legalwork.webhook.attempt': attempt },
      async (span) => {
        const record = await this.attemptOnce(worker, fact, type, attempt, redelivery);
        webhookDeliveries.observe(record.durationMs / 1000, { outcome: record.outcome });
        span.set('legalwork.outcome', record.outcome);
        if (record.responseStatus !== null) span.set('http.response.status_code', record.responseStatus);
        if (record.outcome === 'failed') span.fail(record.responseStatus === null ? 'no answer' : `answered ${record.responseStatus}`);
        return record;
      },
      { kind: 'client', parent: fact.trace },
    );
  }

  private async attemptOnce(worker: Worker, fact: JournalEvent, type: WebhookEventType, attempt: number, redelivery: boolean): Promise<AttemptRecord> {
    const eventId = webhookEventId(fact, type);
    const payload = JSON.stringify({ id: eventId, type, timestamp: fact.at, data: await this.dataOf(fact, type) });
    const at = new Date(this.now());
    const signature = new Webhook(worker.endpoint.secret).sign(eventId, at, payload);
    let answer: Attempted;
    try {
      answer = await this.transport.post(worker.endpoint.url, { 'webhook-id': eventId, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature }, payload, this.policyOf(worker.endpoint.ownerGrain), this.timeoutMs);
    } catch (error) {
      answer = { status: null, body: '', durationMs: 0, error: error instanceof Error ? error.message : String(error) };
    }
    const delivered = answer.status !== null && answer.status >= 200 && answer.status < 300;
    const record: AttemptRecord = {
      deliveryId: deliveryIdOf(worker.endpoint.id, eventId),
      eventId,
      type,
      source: { grain: fact.grain, seq: fact.seq },
      attempt,
      redelivery,
      outcome: delivered ? 'delivered' : 'failed',
      final: !redelivery && (delivered || attempt > RETRY_SCHEDULE_MS.length),
      responseStatus: answer.status,
      durationMs: answer.durationMs,
      responseBody: answer.body,
      ...(answer.error !== undefined ? { error: answer.error } : {}),
      attemptedAt: at.toISOString(),
    };
    await this.journalFact(worker, { kind: 'webhook.attempt', by: 'webhooks', note: `${type} ${eventId} attempt ${attempt}: ${record.outcome}`, data: record as unknown as Record<string, unknown> });
    return record;
  }

  private async disableWorker(worker: Worker, reason: string): Promise<void> {
    await this.journalFact(worker, { kind: 'webhook.endpoint.disabled', by: 'webhooks', note: `webhook endpoint ${worker.endpoint.id} disabled: ${reason}`, data: { reason } }, () => worker.endpoint.disabled === null);
  }

  /**
   * Appends to the endpoint's stream, one writer at a time in this process,
   * and folds what it wrote; unless `wanted` says otherwise once the stream
   * is read. Another process may have written the stream first (a disabling,
   * an attempt): that is folded, and the fact journaled after it.
   */
  private journalFact(worker: Worker, fact: { kind: string; by: string; note: string; data: Record<string, unknown> }, wanted: () => boolean = () => true): Promise<void> {
    return this.supervisor.exclusive(worker.stream, async () => {
      for (let attempt = 1; wanted(); attempt++) {
        try {
          this.fold(worker, await this.supervisor.appendFact(WEBHOOKS_GRAIN, worker.stream, worker.version, fact, worker.endpoint.id));
          return;
        } catch (error) {
          if (!(error instanceof VersionConflict) || attempt >= STALE_RETRIES) throw error;
          await this.catchUp(worker);
        }
      }
    });
  }

  /** Waits `ms` (none when due), or until the worker is closed or disabled. */
  private sleep(worker: Worker, ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((wake) => {
      const timer = setTimeout(() => {
        worker.sleeping = null;
        wake();
      }, ms);
      timer.unref();
      worker.sleeping = {
        timer,
        wake: () => {
          clearTimeout(timer);
          worker.sleeping = null;
          wake();
        },
      };
    });
  }

  /** An event's `data`, from the journal: the Matter as the fact left it, the filing's proof, or the rung. */
  private async dataOf(fact: JournalEvent, type: WebhookEventType): Promise<Record<string, unknown>> {
    if (type.startsWith('reminder.')) return { assetId: fact.subject, ...fact.data };
    const stream = await this.supervisor.journal.readStream(fact.stream);
    const entity = new Entity(MATTER, stream.slice(0, fact.version));
    try {
      if (type === 'outcome.filed') {
        const attestation = fact.data.attestation as { artifactHash: string };
        return { matterId: entity.id, matterType: factsOf(entity).matterType, act: fact.data.act, gigId: fact.data.gigId, artifactHash: attestation.artifactHash, attestation, receipt: fact.data.receipt };
      }
      return { matter: matterView(entity) };
    } finally {
      entity.stop();
    }
  }
}

/**
 * The service's webhook settings: `LEGALWORK_WEBHOOK_ALLOW_PRIVATE=1` (local
 * development), and for tests `LEGALWORK_WEBHOOK_TIME_SCALE` (a factor in
 * (0, 1] on the retry schedule and the disabling window) and
 * `LEGALWORK_WEBHOOK_TIMEOUT_MS`. A malformed value stops the start.
 */
export function webhookOptionsFromEnv(env: NodeJS.ProcessEnv): WebhookOptions {
  const number = (name: string, ok: (n: number) => boolean): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const n = Number(raw);
    if (!ok(n)) throw new Error(`${name} must be a number in range, got "${raw}"`);
    return n;
  };
  const timeScale = number('LEGALWORK_WEBHOOK_TIME_SCALE', (n) => n > 0 && n <= 1);
  const timeoutMs = number('LEGALWORK_WEBHOOK_TIMEOUT_MS', (n) => Number.isInteger(n) && n > 0 && n <= DELIVERY_TIMEOUT_MS);
  return { allowPrivate: env.LEGALWORK_WEBHOOK_ALLOW_PRIVATE === '1', ...(timeScale !== undefined ? { timeScale } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
}
