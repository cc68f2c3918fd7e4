/**
 * API keys. A key is shown once, at issue; the journal keeps only its sha256
 * (a key carries 256 random bits, so a plain digest is not guessable). Keys
 * live in their own grain, which no route serves, so no event tail ever shows
 * a key's hash or its holder's email.
 *
 * A key can be rolled and revoked, as Stripe rolls its API keys:
 *
 * - **Roll** issues a successor that owns what the key owned (its records,
 *   its spend ceiling and its committed spend) and keeps the rolled key
 *   honoured until an expiry its holder chooses (at most 7 days; 0: at
 *   once). A key rolls once; its successor may roll in turn. The keys rolled
 *   from one issued key are its **owner**: the first key's id names the grain
 *   their records are journaled in (`ownGrainOf`), and its stream keeps their
 *   one spend.
 * - **Revoke** ends a key at once.
 * - Whether a key is honoured is decided in one place, `keyState`: `active`
 *   and `rolled` (before its expiry) are; `revoked` and `expired` are
 *   refused 401 on every door, naming the successor where there is one.
 *
 * Streams, all in the keys grain:
 * - `keyhash:<sha256>`: `key.issued`; the first key's also keeps the owner's
 *   spend (`key.spend.reserved` and `key.spend.released`, folded);
 * - `keylife:<key id>`: `key.rolled`, `key.revoked`. Empty (version 0) while
 *   the key is as issued; every write a request presenting the key makes
 *   checks this stream's version in its own transaction (`KeyGuard`).
 * A key's use is journaled apart, in a grain of its own (`keyuse:<key id>`),
 * at most once an hour per process (`noteUse`).
 *
 * Nothing a revoked key sends after its revocation is run. On PostgreSQL,
 * where other processes revoke too:
 * - a request presenting a key reads the key's lifecycle stream's version
 *   (one indexed lookup) before it is honoured, so a key revoked by another
 *   process is refused from the moment that revocation committed;
 * - a request honoured before a revocation but writing after it: each of its
 *   writes carries the check, which takes the lock of the owner's grain head
 *   (the lock every write of the owner's records takes until COMMIT) and
 *   checks the lifecycle stream's version under it; a revocation takes the
 *   same lock. So a write commits before the revocation, or fails its check
 *   and writes nothing. On the embedded journal the one writer serializes
 *   them the same way.
 *
 * The journal has no update and no delete: an owner's committed spend is
 * derived by folding its stream. A paid act reserves its posted price before
 * it runs and releases it only when it is refused, so a crash between the two
 * over-counts, never under-counts: the caller's ceiling stays hard.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { newId } from '../domain/ids.ts';
import type { Refusal } from '../domain/refusal.ts';
import { refusal } from '../domain/refusals.ts';
import { VersionConflict, type JournalEvent, type StreamWrite } from '../journal/store.ts';
import type { Supervisor } from './supervisor.ts';
import { sha256Hex } from '../domain/hash.ts';
import { asBookkeeping } from './idempotency.ts';
import { RecentMap } from '../lib/recent-map.ts';
import { ownGrainOf } from './grains.ts';
import { unguarded, type WriteGuard } from './write-guard.ts';
import type { KeyState } from '../domain/key-life.ts';
import type { IssueKeyBody } from '../schemas/keys.ts';

/** The grain the key streams are journaled in; no route resolves to it. */
export const KEYS_GRAIN = 'keys';

const PREFIX = 'lwk_';
/** `lwk_` followed by 43 base64url characters (32 random bytes). */
export const KEY_PATTERN = /^lwk_[A-Za-z0-9_-]{43}$/;

/** How often a key's use is journaled, at most, per key and process: its `lastUsedAt` is good to this much. */
export const USE_NOTED_EVERY_MS = 60 * 60 * 1000;

/** What `POST /keys` takes, as its schema states it. */
export type IssueRequest = IssueKeyBody;

/** What the keys rolled from one issued key share: their records' grain, one spend ceiling and one committed spend. */
export interface Owner {
  /** The first key's id (`key_…`): its records' grain is named by it (`ownGrainOf`). */
  id: string;
  email: string;
  building?: string;
  /** null: the first key was issued with no ceiling. */
  spendCeilingUsd: number | null;
  /** Posted prices reserved by paid acts and not released. */
  committedUsd: number;
  /** Reservations of acts still running in this process, by reference (the act's request id), in cents. */
  running: Map<string, number>;
  /** The stream that keeps the spend: the first key's `keyhash:` stream. */
  stream: string;
  version: number;
}

/** A key's lifecycle, folded from its `keylife:` stream. */
export interface Life {
  version: number;
  rolled: { at: string; successorId: string; expiresAt: string; secret: string } | null;
  revokedAt: string | null;
}

export interface KeyRecord {
  id: string;
  hash: string;
  issuedAt: string;
  /** The key this one succeeded (rolled into it), if any. */
  predecessor: { id: string; hash: string } | null;
  owner: Owner;
  life: Life;
  /** This process's memory of its use (ms): the last time it honoured the key, and the last use it journaled. */
  used: { last: number; noted: number };
}

/** A key's record as `Keys.find` found it; `loaded`: read from the journal just now (so its lifecycle is current). */
export interface FoundKey {
  record: KeyRecord;
  loaded: boolean;
}

/** A key as `GET /keys/self` shows it. */
export interface KeyView {
  id: string;
  state: KeyState;
  issuedAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  successorId: string | null;
  predecessorId: string | null;
}

export const hashKey = (key: string) => sha256Hex(key);
const streamOf = (hash: string) => `keyhash:${hash}`;
/** A key's lifecycle stream: what every write its requests make checks. */
export const lifeStreamOf = (keyId: string) => `keylife:${keyId}`;
/** A key's uses: a grain (and stream) of its own, whose last fact is its last use. */
export const useGrainOf = (keyId: string) => `keyuse:${keyId}`;

/**
 * The successor a roll issues, derived from the rolled key and a secret the
 * roll journals (HMAC-SHA256, 256 bits): the service keeps neither key, yet
 * a retry of the roll that presents the rolled key (under the same
 * Idempotency-Key) is shown the same successor. Without the rolled key the
 * journal's secret gives nothing; without the secret the rolled key gives
 * nothing.
 */
export const successorKeyOf = (rolledKey: string, secret: string): string => PREFIX + createHmac('sha256', rolledKey).update(`legalwork key roll ${secret}`).digest('base64url');

/**
 * A key issued to a caller who presented one (`POST /keys` sent with a key):
 * derived from the presented key and a salt the answer carries in its place
 * (HMAC-SHA256, 256 bits), so a retry presenting the same key under the same
 * Idempotency-Key is shown it again while the journal, the kept answer
 * included, holds only its hash and the salt. As with a roll's successor:
 * without the presented key the salt gives nothing, without the kept answer
 * the presented key gives nothing.
 */
export const issuedKeyOf = (presentedKey: string, salt: string): string => PREFIX + createHmac('sha256', presentedKey).update(`legalwork key issue ${salt}`).digest('base64url');

/** Where `record` stands at `now` (ms): the one answer to "is this key honoured?". */
export function keyState(record: Pick<KeyRecord, 'life'>, now: number): KeyState {
  const { rolled, revokedAt } = record.life;
  if (revokedAt !== null) return 'revoked';
  if (rolled) return Date.parse(rolled.expiresAt) <= now ? 'expired' : 'rolled';
  return 'active';
}

/** The 401 a key that is no longer honoured is refused with, naming its successor's door; null while it is honoured. */
export function refusalOf(record: Pick<KeyRecord, 'id' | 'life'>, now: number): Refusal | null {
  const { rolled, revokedAt } = record.life;
  const successor = rolled?.successorId ?? null;
  const extra = { keyId: record.id, ...(successor ? { successorId: successor, fix: `send its successor, ${successor}, instead: GET /keys/self with that key shows its state` } : {}) };
  switch (keyState(record, now)) {
    case 'revoked':
      return refusal('KEY_REVOKED', { keyId: record.id, at: revokedAt!, successorId: successor }, { ...extra, endedAt: revokedAt });
    case 'expired':
      return refusal('KEY_EXPIRED', { keyId: record.id, at: rolled!.expiresAt, successorId: successor! }, { ...extra, endedAt: rolled!.expiresAt });
    default:
      return null;
  }
}

/**
 * How many key records (and owners) stay in memory: keys are minted by
 * anyone who asks (`POST /keys`), so an unbounded map would let a caller grow
 * the heap at will (about 0.5 KiB a key). A miss folds the key's streams
 * again, as after a restart.
 */
export const KEY_CACHE_SIZE = 10_000;
/** How many times a reservation, a roll or a revocation is decided again when another process, or another copy of the record, wrote first. */
const STALE_RETRIES = 5;
/** Money is summed in cents so repeated reservations never drift. */
const cents = (usd: number) => Math.round(usd * 100);

export interface KeysOptions {
  capacity?: number;
  /** Wall clock (ms): when a rolled key expires, and when a key was last used. */
  now?: () => number;
}

export class Keys {
  /** The records of the keys used most recently. */
  private readonly byHash: RecentMap<string, KeyRecord>;
  /** Owners by their spend stream, so the keys of one owner share one spend in this process. */
  private readonly owners: RecentMap<string, Owner>;
  private readonly now: () => number;

  constructor(
    private readonly supervisor: Supervisor,
    options: KeysOptions = {},
  ) {
    this.byHash = new RecentMap(options.capacity ?? KEY_CACHE_SIZE);
    this.owners = new RecentMap(options.capacity ?? KEY_CACHE_SIZE);
    this.now = options.now ?? Date.now;
  }

  /** How many key records are in memory (at most the capacity). */
  get resident(): number {
    return this.byHash.size;
  }

  /**
   * Issues a key: random, or, for a caller who presented a key, derived from
   * it and the `salt` (`issuedKeyOf`). The key exists nowhere else afterwards.
   */
  async issue(request: IssueRequest, derived?: { presentedKey: string; salt: string }): Promise<{ key: string; record: KeyRecord }> {
    const id = newId('key');
    const key = derived ? issuedKeyOf(derived.presentedKey, derived.salt) : PREFIX + randomBytes(32).toString('base64url');
    const hash = hashKey(key);
    const data = {
      keyId: id,
      keyHash: hash,
      email: request.email,
      ...(request.building !== undefined ? { building: request.building } : {}),
      spendCeilingUsd: request.spendCeilingUsd ?? null,
    };
    const [issued] = await this.supervisor.openStream(KEYS_GRAIN, streamOf(hash), { kind: 'key.issued', by: 'gate', note: `API key ${id} issued`, data }, id);
    const owner = ownerOf([issued]);
    this.owners.set(owner.stream, owner);
    const record = recordOf(issued, owner, foldLife([]));
    this.byHash.set(hash, record);
    return { key, record };
  }

  /** Whether `key` is the key issued as `keyId` (a derived key checked before it is shown again). */
  async isKey(key: string, keyId: string): Promise<boolean> {
    return (await this.find(key))?.record.id === keyId;
  }

  /**
   * The key a request presents, as the journal has it now: refused 401
   * when it was never issued (`KEY_UNKNOWN`), was revoked (`KEY_REVOKED`) or
   * its grace after a roll has ended (`KEY_EXPIRED`). On a journal other
   * processes share, a key held in memory has its lifecycle stream's
   * version read first (one indexed lookup): a revocation another process
   * committed is never missed.
   */
  async present(key: string): Promise<KeyRecord> {
    return this.honour(await this.find(key));
  }

  /**
   * `present`, given what `find` found for the key (a request looks its key
   * up once, for the rate limit and for auth: `http/presented-key.ts`).
   */
  async honour(found: FoundKey | null): Promise<KeyRecord> {
    if (!found) throw refusal('KEY_UNKNOWN', {});
    if (!found.loaded) await this.current(found.record);
    const refused = refusalOf(found.record, this.now());
    if (refused) throw refused;
    return found.record;
  }

  /**
   * Whether this process holds `record` honoured, from memory alone: what
   * the rate limit counts a caller by (a key another process revoked a
   * moment ago is counted as its owner once more, then `present` reads the
   * revocation). Honouring a request is `present`'s.
   */
  honours(record: KeyRecord): boolean {
    return refusalOf(record, this.now()) === null;
  }

  /** The key's record as this process holds it (whatever its state), or null when the key was never issued. */
  async lookup(key: string): Promise<KeyRecord | null> {
    return (await this.find(key))?.record ?? null;
  }

  /**
   * The key's record (`loaded`: read from the journal just now), or null when
   * the key was never issued: its hash, then memory, or its streams on a miss.
   * The one lookup of a presented key; `honour` judges what it found.
   */
  async find(key: string): Promise<FoundKey | null> {
    if (!KEY_PATTERN.test(key)) return null;
    const hash = hashKey(key);
    const cached = this.byHash.use(hash);
    if (cached) return { record: cached, loaded: false };
    const record = await this.load(hash);
    return record && { record, loaded: true };
  }

  /** A key's record by its hash: from memory, else folded from its streams. */
  private async load(hash: string): Promise<KeyRecord | null> {
    const cached = this.byHash.get(hash);
    if (cached) return cached;
    const events = await this.supervisor.journal.readStream(streamOf(hash));
    const issued = events[0];
    if (!issued || issued.kind !== 'key.issued' || issued.grain !== KEYS_GRAIN) return null;
    const ownerStream = (issued.data.ownerStream as string | undefined) ?? issued.stream;
    const [owner, life] = await Promise.all([
      ownerStream === issued.stream ? this.owners.get(ownerStream) ?? ownerOf(events) : this.ownerAt(ownerStream),
      this.supervisor.journal.readStream(lifeStreamOf(issued.data.keyId as string)).then(foldLife),
    ]);
    // Another request may have loaded either meanwhile; keep the first copy. (A request still holding a copy forgotten
    // since reserves on it safely: a stale copy's append conflicts and folds what the newer one wrote.)
    const kept = this.owners.get(owner.stream) ?? owner;
    this.owners.set(kept.stream, kept);
    const record = this.byHash.get(hash) ?? recordOf(issued, kept, life);
    this.byHash.set(hash, record);
    return record;
  }

  /** The owner whose spend `stream` keeps (the first key's stream). */
  private async ownerAt(stream: string): Promise<Owner> {
    return this.owners.get(stream) ?? ownerOf(await this.supervisor.journal.readStream(stream));
  }

  /** On a journal other processes share: the key's lifecycle as the journal has it now (one lookup; the stream is read only when it moved). */
  private async current(record: KeyRecord): Promise<void> {
    if (!this.supervisor.journal.shared) return;
    if ((await this.supervisor.journal.streamVersion(lifeStreamOf(record.id))) > record.life.version) await this.refreshLife(record);
  }

  /** Folds the key's lifecycle stream again, into the record every holder shares. */
  private async refreshLife(record: KeyRecord): Promise<void> {
    const life = foldLife(await this.supervisor.journal.readStream(lifeStreamOf(record.id)));
    if (life.version >= record.life.version) record.life = life;
  }

  /**
   * The check every write of a request presenting `record` carries
   * (`Supervisor.append` joins it; roll, revoke and a spend reservation join
   * it themselves): the key's lifecycle stream at the version this process
   * last saw, in the owner's grain, whose head lock a write to the owner's
   * records holds until COMMIT on PostgreSQL. Throws the 401 when the key is
   * no longer honoured.
   */
  checkOf(record: KeyRecord): StreamWrite {
    const refused = refusalOf(record, this.now());
    if (refused) throw refused;
    return { stream: lifeStreamOf(record.id), grain: ownGrainOf(record.owner.id), expectedVersion: record.life.version, events: [] };
  }

  /** The guard of a request presenting `record`: its writes commit only while the key is honoured. */
  guard(record: KeyRecord): KeyGuard {
    return new KeyGuard(this, record);
  }

  /** The key's lifecycle stream moved under a write: read it again, and refuse when the key is no longer honoured. */
  async moved(record: KeyRecord): Promise<void> {
    await this.refreshLife(record);
    const refused = refusalOf(record, this.now());
    if (refused) throw refused;
  }

  /**
   * Rolls the key `presented` (whose record is `record`): issues its
   * successor, owning what it owns, and keeps it honoured `expiresInSeconds`
   * more (0: refused at once), in one transaction that checks the key as any
   * of its writes does. A key rolls once: a rolled one is refused 409 naming
   * its successor.
   */
  async roll(presented: string, record: KeyRecord, expiresInSeconds: number): Promise<{ key: string; successor: KeyRecord }> {
    const secret = randomBytes(32).toString('base64url');
    const key = successorKeyOf(presented, secret);
    const hash = hashKey(key);
    const id = newId('key');
    const written = await this.changeLife(record, () => {
      if (record.life.rolled) throw refusal('KEY_ALREADY_ROLLED', { keyId: record.id, successorId: record.life.rolled.successorId, expiresAt: record.life.rolled.expiresAt }, { keyId: record.id, successorId: record.life.rolled.successorId });
      const expiresAt = new Date(this.now() + expiresInSeconds * 1000).toISOString();
      const { owner } = record;
      const issued = {
        keyId: id,
        keyHash: hash,
        email: owner.email,
        ...(owner.building !== undefined ? { building: owner.building } : {}),
        spendCeilingUsd: owner.spendCeilingUsd,
        ownerId: owner.id,
        ownerStream: owner.stream,
        predecessorId: record.id,
        predecessorHash: record.hash,
      };
      return [
        { kind: 'key.rolled', note: `API key ${record.id} rolled into ${id}; honoured until ${expiresAt}`, data: { keyId: record.id, successorId: id, expiresAt, secret } },
        this.supervisor.factWrite(streamOf(hash), 0, { kind: 'key.issued', by: 'gate', note: `API key ${id} issued, succeeding ${record.id}`, data: issued }, id),
      ];
    });
    const successor = recordOf(written.find((e) => e.kind === 'key.issued')!, record.owner, foldLife([]));
    this.byHash.set(hash, successor);
    return { key, successor };
  }

  /** Revokes the key at once, in one transaction that checks it as any of its writes does. */
  async revoke(record: KeyRecord): Promise<void> {
    await this.changeLife(record, () => [{ kind: 'key.revoked', note: `API key ${record.id} revoked by its holder`, data: { keyId: record.id, revokedAt: new Date(this.now()).toISOString() } }]);
  }

  /**
   * Appends a change of the key's lifecycle (its first fact on the key's
   * lifecycle stream, then any other writes of the same transaction) behind
   * the key's own check, so it lands after every write of the key that
   * committed before it, and no write checked against the key's former
   * version commits after it. Decided again when another process changed the
   * key first. The request's Idempotency-Key claim joins it.
   */
  private async changeLife(record: KeyRecord, decide: () => [{ kind: string; note: string; data: Record<string, unknown> }, ...StreamWrite[]]): Promise<JournalEvent[]> {
    await this.current(record);
    for (let attempt = 1; ; attempt++) {
      const check = this.checkOf(record);
      const [fact, ...others] = decide();
      const change = this.supervisor.factWrite(check.stream, check.expectedVersion, { ...fact, by: 'gate' }, record.id);
      try {
        const written = await unguarded(() => this.supervisor.append(KEYS_GRAIN, [check, change, ...others]));
        applyLife(record, written.filter((e) => e.stream === check.stream));
        return written;
      } catch (error) {
        if (!(error instanceof VersionConflict) || error.stream !== check.stream || attempt >= STALE_RETRIES) throw error;
        await this.refreshLife(record);
      }
    }
  }

  /**
   * Where a key stands, for its holder (`GET /keys/self`): the key, the key
   * it succeeded (if any), and its owner's ceiling and committed spend.
   */
  async describe(record: KeyRecord): Promise<{ key: KeyView; predecessor?: KeyView; owner: Owner }> {
    const predecessor = record.predecessor && (await this.load(record.predecessor.hash));
    if (predecessor) await this.current(predecessor);
    await this.catchUp(record.owner);
    return {
      key: await this.view(record),
      ...(predecessor ? { predecessor: await this.view(predecessor) } : {}),
      owner: record.owner,
    };
  }

  private async view(record: KeyRecord): Promise<KeyView> {
    const { rolled, revokedAt } = record.life;
    return {
      id: record.id,
      state: keyState(record, this.now()),
      issuedAt: record.issuedAt,
      expiresAt: rolled?.expiresAt ?? null,
      revokedAt,
      lastUsedAt: await this.lastUsedAt(record),
      successorId: rolled?.successorId ?? null,
      predecessorId: record.predecessor?.id ?? null,
    };
  }

  /**
   * When the key was last used, to the hour: the later of the last use any
   * process journaled (each journals at most one an hour) and this process's
   * own last use. The key was used at or after it, and not an hour after it
   * without that being journaled.
   */
  private async lastUsedAt(record: KeyRecord): Promise<string | null> {
    const journal = this.supervisor.journal;
    const grain = useGrainOf(record.id);
    const seq = await journal.latestSeq(grain);
    const [last] = seq > 0 ? await journal.readTail(grain, { after: seq - 1, limit: 1, feed: 'timeline' }) : [];
    // An unreadable record of a use counts as none journaled: this process's own is still known.
    const journaled = last && !last.unreadable ? Date.parse(last.data.usedAt as string) : 0;
    const latest = Math.max(journaled, record.used.last);
    return latest > 0 ? new Date(latest).toISOString() : null;
  }

  /**
   * Notes a use of the key (a request honoured and past the rate limit): in
   * memory, and in the journal when this process has not journaled one in
   * the last hour. A write per request would cost
   * a write per read and put every caller's rhythm in the journal; this
   * keeps `lastUsedAt` good to the hour. Bookkeeping, beside the request:
   * never waited for, and a failure (another process noted the same use
   * first, the journal closing) costs only that note.
   */
  noteUse(record: KeyRecord): void {
    const now = this.now();
    record.used.last = now;
    if (now - record.used.noted < USE_NOTED_EVERY_MS) return;
    record.used.noted = now;
    const grain = useGrainOf(record.id);
    const fact = { kind: 'key.used', by: 'gate', note: `API key ${record.id} used`, data: { keyId: record.id, usedAt: new Date(now).toISOString() } };
    void asBookkeeping(async () => this.supervisor.appendFact(grain, grain, await this.supervisor.journal.streamVersion(grain), fact, record.id)).catch(() => undefined);
  }

  /**
   * Reserves `amountUsd` against the owner's ceiling for the paid act `act`,
   * or refuses 403 BLOCKED naming the ceiling. Serialized per owner (every
   * key rolled from one shares it), so two concurrent acts cannot both slip
   * under it; checked against the key as its other writes are.
   */
  reserve(record: KeyRecord, ref: string, amountUsd: number, act: string): Promise<void> {
    const { owner } = record;
    return this.supervisor.exclusive(owner.stream, async () => {
      await this.appendSpend(owner, { kind: 'key.spend.reserved', note: `${amountUsd} USD reserved for ${act}`, data: { ref, amountUsd, act } }, record, () => {
        const ceiling = owner.spendCeilingUsd;
        if (ceiling === null || cents(owner.committedUsd) + cents(amountUsd) <= cents(ceiling)) return null;
        return refusal('SPEND_CEILING', { act, priceUsd: amountUsd, committedUsd: owner.committedUsd, ceiling }, { spendCeilingUsd: ceiling, committedUsd: owner.committedUsd, priceUsd: amountUsd, act });
      });
      owner.running.set(ref, cents(amountUsd));
    });
  }

  /** Releases a reservation whose act was refused (nothing of it was written), whatever became of the key meanwhile. */
  release(record: KeyRecord, ref: string, reason: string): Promise<void> {
    const { owner } = record;
    return this.supervisor.exclusive(owner.stream, async () => {
      const amount = owner.running.get(ref);
      if (amount === undefined) return;
      await this.appendSpend(owner, { kind: 'key.spend.released', note: `reservation ${ref} released: ${reason}`, data: { ref, amountUsd: amount / 100, reason } });
      owner.running.delete(ref);
    });
  }

  /**
   * Journals a spend fact on the owner's stream at the version this record
   * folded, unless `refusalOf` refuses it, with the check of the key that
   * spends (`key`) in the same transaction. On a journal other processes
   * share, the facts they wrote are folded first; one written between that
   * and the append (by another process, or through another copy of the
   * record in this one) makes it a conflict, folded in turn before deciding
   * again. A refusal is decided only on what the journal holds: a copy that
   * may be behind folds first.
   */
  private async appendSpend(owner: Owner, fact: { kind: string; note: string; data: Record<string, unknown> }, key?: KeyRecord, refusalOf: () => Refusal | null = () => null): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const current = attempt > 1 || this.supervisor.journal.shared;
      if (current) await this.catchUp(owner);
      let refused = refusalOf();
      if (refused && !current) {
        await this.catchUp(owner);
        refused = refusalOf();
      }
      if (refused) throw refused;
      const writes = [...(key ? [this.checkOf(key)] : []), this.supervisor.factWrite(owner.stream, owner.version, { ...fact, by: 'gate' }, owner.id)];
      try {
        applySpend(owner, await asBookkeeping(() => this.supervisor.append(KEYS_GRAIN, writes)));
        return;
      } catch (error) {
        if (!(error instanceof VersionConflict) || attempt >= STALE_RETRIES) throw error;
        // The key's lifecycle moved (rolled, or revoked: then the next check refuses), or the spend did.
        if (key && error.stream === lifeStreamOf(key.id)) await this.refreshLife(key);
      }
    }
  }

  /** Folds the owner's spend facts journaled after the record's version (by another process, or through another copy of the record). */
  private async catchUp(owner: Owner): Promise<void> {
    applySpend(owner, (await this.supervisor.journal.readStream(owner.stream)).filter((e) => e.version > owner.version));
  }

  /** The act went through: its reservation stays committed for good. */
  settle(record: KeyRecord, ref: string): void {
    record.owner.running.delete(ref);
  }
}

/** The guard of a request presenting a key (`write-guard.ts`): closed when the request is over, so work it left behind is not its own. */
export class KeyGuard implements WriteGuard {
  private open = true;

  constructor(
    private readonly keys: Keys,
    readonly record: KeyRecord,
  ) {}

  check(): StreamWrite | null {
    return this.open ? this.keys.checkOf(this.record) : null;
  }

  moved(): Promise<void> {
    return this.keys.moved(this.record);
  }

  close(): void {
    this.open = false;
  }
}

/** The owner a first key's stream folds to: its issue, then its spend. */
function ownerOf(events: JournalEvent[]): Owner {
  const issued = events[0];
  const d = issued.data as { keyId: string; email: string; building?: string; spendCeilingUsd: number | null };
  const owner: Owner = {
    id: d.keyId,
    email: d.email,
    ...(d.building !== undefined ? { building: d.building } : {}),
    spendCeilingUsd: d.spendCeilingUsd,
    committedUsd: 0,
    running: new Map(),
    stream: issued.stream,
    version: 1,
  };
  applySpend(owner, events.slice(1));
  return owner;
}

function recordOf(issued: JournalEvent, owner: Owner, life: Life): KeyRecord {
  const d = issued.data as { keyId: string; keyHash: string; predecessorId?: string; predecessorHash?: string };
  return {
    id: d.keyId,
    hash: d.keyHash,
    issuedAt: issued.at,
    predecessor: d.predecessorId && d.predecessorHash ? { id: d.predecessorId, hash: d.predecessorHash } : null,
    owner,
    life,
    used: { last: 0, noted: 0 },
  };
}

/**
 * Folds spend facts: every reservation counts until a release names it. A
 * fact the owner has folded already is skipped: a read of the stream (for
 * `GET /keys/self`) may land beside a reservation's own append.
 */
function applySpend(owner: Owner, events: JournalEvent[]): void {
  let total = cents(owner.committedUsd);
  for (const e of events) {
    if (e.version <= owner.version) continue;
    if (e.kind === 'key.spend.reserved') total += cents(e.data.amountUsd as number);
    if (e.kind === 'key.spend.released') total -= cents(e.data.amountUsd as number);
    owner.version = e.version;
  }
  owner.committedUsd = total / 100;
}

function foldLife(events: JournalEvent[]): Life {
  const life: Life = { version: 0, rolled: null, revokedAt: null };
  applyLifeTo(life, events);
  return life;
}

/** Folds lifecycle facts written through this record into it (a copy the journal has moved past is refreshed instead). */
function applyLife(record: KeyRecord, events: JournalEvent[]): void {
  const life = { ...record.life };
  applyLifeTo(life, events);
  record.life = life;
}

function applyLifeTo(life: Life, events: JournalEvent[]): void {
  for (const e of events) {
    if (e.version <= life.version) continue;
    if (e.kind === 'key.rolled') life.rolled = { at: e.at, successorId: e.data.successorId as string, expiresAt: e.data.expiresAt as string, secret: e.data.secret as string };
    if (e.kind === 'key.revoked') life.revokedAt = e.data.revokedAt as string;
    life.version = e.version;
  }
}
