/**
 * API keys. A key is shown once, at issue; the journal keeps only its sha256
 * (a key carries 256 random bits, so a plain digest is not guessable). Keys
 * live in their own grain, which no route serves, so no event tail ever shows
 * a key's hash or its holder's email.
 *
 * The journal has no update and no delete: a key's committed spend is derived
 * by folding its stream (`key.issued`, then `key.spend.reserved` and
 * `key.spend.released` facts). A paid act reserves its posted price before it
 * runs and releases it only when it is refused, so a crash between the two
 * over-counts, never under-counts: the caller's ceiling stays hard.
 */
import { randomBytes } from 'node:crypto';
import { newId } from '../domain/ids.ts';
import type { Refusal } from '../domain/refusal.ts';
import { refusal } from '../domain/refusals.ts';
import { VersionConflict, type JournalEvent } from '../journal/store.ts';
import type { Supervisor } from './supervisor.ts';
import { sha256Hex } from '../domain/hash.ts';
import { asBookkeeping } from './idempotency.ts';
import { RecentMap } from '../lib/recent-map.ts';

/** The grain the key streams are journaled in; no route resolves to it. */
export const KEYS_GRAIN = 'keys';

const PREFIX = 'lwk_';
/** `lwk_` followed by 43 base64url characters (32 random bytes). */
export const KEY_PATTERN = /^lwk_[A-Za-z0-9_-]{43}$/;

export interface IssueRequest {
  email: string;
  building?: string;
  spendCeilingUsd?: number;
}

export interface KeyRecord {
  id: string;
  email: string;
  building?: string;
  /** null: the caller set no ceiling. */
  spendCeilingUsd: number | null;
  issuedAt: string;
  /** Posted prices reserved by paid acts and not released. */
  committedUsd: number;
  /** Reservations of acts still running in this process, by reference (the act's request id), in cents. */
  running: Map<string, number>;
  stream: string;
  version: number;
}

export const hashKey = (key: string) => sha256Hex(key);
const streamOf = (hash: string) => `keyhash:${hash}`;
/**
 * How many key records stay in memory: keys are minted by anyone who asks
 * (`POST /keys`), so an unbounded map would let a caller grow the heap at will
 * (about 0.5 KiB a key). A miss folds the key's stream again, as after a restart.
 */
export const KEY_CACHE_SIZE = 10_000;
/** How many times a reservation is decided again when another process, or another copy of the record, reserved on the key first. */
const STALE_RETRIES = 5;
/** Money is summed in cents so repeated reservations never drift. */
const cents = (usd: number) => Math.round(usd * 100);

export class Keys {
  /** The records of the keys used most recently. */
  private readonly byHash: RecentMap<string, KeyRecord>;

  constructor(
    private readonly supervisor: Supervisor,
    capacity = KEY_CACHE_SIZE,
  ) {
    this.byHash = new RecentMap(capacity);
  }

  /** How many key records are in memory (at most the capacity). */
  get resident(): number {
    return this.byHash.size;
  }

  /** Issues a key; the returned secret exists nowhere else afterwards. */
  async issue(request: IssueRequest): Promise<{ key: string; record: KeyRecord }> {
    const key = PREFIX + randomBytes(32).toString('base64url');
    const hash = hashKey(key);
    const id = newId('key');
    const stream = streamOf(hash);
    const data = {
      keyId: id,
      keyHash: hash,
      email: request.email,
      ...(request.building !== undefined ? { building: request.building } : {}),
      spendCeilingUsd: request.spendCeilingUsd ?? null,
    };
    const [issued] = await this.supervisor.openStream(KEYS_GRAIN, stream, { kind: 'key.issued', by: 'gate', note: `API key ${id} issued`, data }, id);
    const record = fold([issued]);
    this.byHash.set(hash, record);
    return { key, record };
  }

  /** The key's record, or null when the key was never issued. */
  async lookup(key: string): Promise<KeyRecord | null> {
    if (!KEY_PATTERN.test(key)) return null;
    const hash = hashKey(key);
    const cached = this.byHash.use(hash);
    if (cached) return cached;
    const events = await this.supervisor.journal.readStream(streamOf(hash));
    if (events.length === 0 || events[0].kind !== 'key.issued' || events[0].grain !== KEYS_GRAIN) return null;
    // Another request may have loaded it meanwhile; keep the first copy. (A
    // request still holding a copy forgotten since reserves on it safely: a
    // stale copy's append conflicts and folds what the newer one wrote.)
    const record = this.byHash.get(hash) ?? fold(events);
    this.byHash.set(hash, record);
    return record;
  }

  /**
   * Reserves `amountUsd` against the key's ceiling for the paid act `act`,
   * or refuses 403 BLOCKED naming the ceiling. Serialized per key, so two
   * concurrent acts cannot both slip under it.
   */
  reserve(record: KeyRecord, ref: string, amountUsd: number, act: string): Promise<void> {
    return this.supervisor.exclusive(record.stream, async () => {
      await this.appendSpend(record, { kind: 'key.spend.reserved', note: `${amountUsd} USD reserved for ${act}`, data: { ref, amountUsd, act } }, () => {
        const ceiling = record.spendCeilingUsd;
        if (ceiling === null || cents(record.committedUsd) + cents(amountUsd) <= cents(ceiling)) return null;
        return refusal('SPEND_CEILING', { act, priceUsd: amountUsd, committedUsd: record.committedUsd, ceiling }, { spendCeilingUsd: ceiling, committedUsd: record.committedUsd, priceUsd: amountUsd, act });
      });
      record.running.set(ref, cents(amountUsd));
    });
  }

  /** Releases a reservation whose act was refused (nothing of it was written). */
  release(record: KeyRecord, ref: string, reason: string): Promise<void> {
    return this.supervisor.exclusive(record.stream, async () => {
      const amount = record.running.get(ref);
      if (amount === undefined) return;
      await this.appendSpend(record, { kind: 'key.spend.released', note: `reservation ${ref} released: ${reason}`, data: { ref, amountUsd: amount / 100, reason } });
      record.running.delete(ref);
    });
  }

  /**
   * Journals a spend fact on the key's stream at the version this record
   * folded, unless `refusalOf` refuses it. On a journal other processes share, the
   * key's facts they wrote are folded first; one written between that and
   * the append (by another process, or through another copy of the record in
   * this one) makes it a conflict, folded in turn before deciding again. A
   * refusal is decided only on what the journal holds: a copy that may be
   * behind folds first.
   */
  private async appendSpend(record: KeyRecord, fact: { kind: string; note: string; data: Record<string, unknown> }, refusalOf: () => Refusal | null = () => null): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const current = attempt > 1 || this.supervisor.journal.shared;
      if (current) await this.catchUp(record);
      let refused = refusalOf();
      if (refused && !current) {
        await this.catchUp(record);
        refused = refusalOf();
      }
      if (refused) throw refused;
      try {
        apply(record, await asBookkeeping(() => this.supervisor.appendFact(KEYS_GRAIN, record.stream, record.version, { ...fact, by: 'gate' }, record.id)));
        return;
      } catch (error) {
        if (!(error instanceof VersionConflict) || attempt >= STALE_RETRIES) throw error;
      }
    }
  }

  /** Folds the key's facts journaled after the record's version (by another process, or through another copy of the record). */
  private async catchUp(record: KeyRecord): Promise<void> {
    apply(record, (await this.supervisor.journal.readStream(record.stream)).filter((e) => e.version > record.version));
  }

  /** The act went through: its reservation stays committed for good. */
  settle(record: KeyRecord, ref: string): void {
    record.running.delete(ref);
  }
}

function fold(events: JournalEvent[]): KeyRecord {
  const issued = events[0];
  const d = issued.data as { keyId: string; email: string; building?: string; spendCeilingUsd: number | null };
  const record: KeyRecord = {
    id: d.keyId,
    email: d.email,
    ...(d.building !== undefined ? { building: d.building } : {}),
    spendCeilingUsd: d.spendCeilingUsd,
    issuedAt: issued.at,
    committedUsd: 0,
    running: new Map(),
    stream: issued.stream,
    version: 1,
  };
  apply(record, events.slice(1));
  return record;
}

/** Folds spend facts: every reservation counts until a release names it. */
function apply(record: KeyRecord, events: JournalEvent[]): void {
  let total = cents(record.committedUsd);
  for (const e of events) {
    if (e.kind === 'key.spend.reserved') total += cents(e.data.amountUsd as number);
    if (e.kind === 'key.spend.released') total -= cents(e.data.amountUsd as number);
    record.version = e.version;
  }
  record.committedUsd = total / 100;
}
