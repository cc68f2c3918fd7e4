/** An in-memory journal for unit tests only: same contract, no durability. */
import { edgeCounts, enteredOf, snapshotOf, snapshotRow, statesOf, type PopulationRow, type SnapshotRow } from './population-rows.ts';
import { checksumOf, intact } from './answer-rows.ts';
import { EXPIRING_OPENINGS, GrainPurged, HELD_BY, HELD_OPENINGS, NotPurgeable } from './retention.ts';
import { DELIVERY_KIND, inFeed, INTENT_KINDS, VersionConflict, type IntentCursor, type JournalEvent, type JournalStore, type PopulationCounts, type PopulationLedger, type PopulationMachine, type PopulationRows, type StreamSnapshot, type StreamWrite, type TailQuery, type AnswerRow, type PurgeStep, type NewEvent } from './store.ts';

export class MemoryJournal implements JournalStore {
  private readonly grains = new Map<string, JournalEvent[]>();
  private readonly streams = new Map<string, JournalEvent[]>();
  /** Each entity stream's snapshot row, as the SQL adapters keep it (population-rows.ts). */
  private readonly snapshots = new Map<string, SnapshotRow>();
  private readonly ledgers = new Map<string, PopulationLedger>();
  private readonly edges = new Map<string, Map<string, number>>();
  private readonly answers = new Map<string, AnswerRow & { crc: number }>();
  /** Purged grains (their tombstones), and whether each purge is done. */
  private readonly purged = new Map<string, boolean>();
  /** Each grain's last seq, which a purge of rows it held never takes back. */
  private readonly seqs = new Map<string, number>();

  async append(grain: string, writes: StreamWrite[]): Promise<JournalEvent[]> {
    for (const w of writes) {
      const into = w.grain ?? grain;
      const heldBy = this.streams.get(w.stream)?.[0]?.data[HELD_BY];
      if (this.purged.has(into)) throw new GrainPurged(into);
      if (typeof heldBy === 'string' && this.purged.has(heldBy)) throw new GrainPurged(heldBy);
    }
    for (const w of writes) {
      const actual = this.streams.get(w.stream)?.length ?? 0;
      if (actual !== w.expectedVersion) throw new VersionConflict(w.stream, w.expectedVersion, actual);
    }
    const completed = this.completion(grain, writes);
    const written: JournalEvent[] = [];
    for (const w of writes) {
      const into = w.grain ?? grain;
      const tail = this.grains.get(into) ?? [];
      this.grains.set(into, tail);
      const stream = this.streams.get(w.stream) ?? [];
      this.streams.set(w.stream, stream);
      const first = written.length;
      for (const e of w.completes ? completed! : w.events) {
        const seq = (this.seqs.get(into) ?? 0) + 1;
        this.seqs.set(into, seq);
        // A tail entry is kept beside an event, never read back as part of it (`NewEvent.entry`); this journal keeps none.
        const { entry: _entry, ...fields } = e;
        const event = structuredClone({ ...fields, grain: into, seq, stream: w.stream, version: stream.length + 1 });
        tail.push(event);
        stream.push(event);
        written.push(event);
      }
      if (w.snapshot) {
        this.snapshots.set(w.stream, snapshotRow(w.stream, stream.length, into, structuredClone(w.snapshot), enteredOf(w.snapshot, written.slice(first))));
        const key = `${into}\n${w.snapshot.machine}`;
        const ledger = this.ledgers.get(key) ?? { streams: 0, events: 0, transitions: 0 };
        const transitions = w.transitions ?? [];
        this.ledgers.set(key, { streams: ledger.streams + (w.expectedVersion === 0 ? 1 : 0), events: ledger.events + w.events.length, transitions: ledger.transitions + transitions.length });
        const edges = this.edges.get(key) ?? new Map<string, number>();
        this.edges.set(key, edges);
        for (const [edge, n] of edgeCounts(transitions)) edges.set(edge, (edges.get(edge) ?? 0) + n);
      }
    }
    return structuredClone(written);
  }

  /** The events a completing write makes, from the append's other events as they will be written (positions given), before anything is. */
  private completion(grain: string, writes: StreamWrite[]): NewEvent[] | undefined {
    const last = writes[writes.length - 1];
    if (!last?.completes) return undefined;
    const seqs = new Map<string, number>();
    const versions = new Map<string, number>();
    const ahead: JournalEvent[] = [];
    for (const w of writes.slice(0, -1)) {
      const into = w.grain ?? grain;
      for (const e of w.events) {
        const seq = (seqs.get(into) ?? this.seqs.get(into) ?? 0) + 1;
        const version = (versions.get(w.stream) ?? this.streams.get(w.stream)?.length ?? 0) + 1;
        seqs.set(into, seq);
        versions.set(w.stream, version);
        const { entry: _entry, ...fields } = e;
        ahead.push(structuredClone({ ...fields, grain: into, seq, stream: w.stream, version }));
      }
    }
    return last.completes(ahead);
  }

  /** As the SQL adapters: a row only while each of its deps stands where it says. */
  private fresh(deps: AnswerRow['deps']): boolean {
    return deps.every(([stream, version]) => (this.streams.get(stream)?.length ?? 0) === version);
  }

  async putAnswer(row: AnswerRow) {
    if (this.fresh(row.deps)) this.answers.set(row.stream, { ...structuredClone(row), crc: checksumOf(row.body) });
  }

  async listItems(grain: string, kind: string, tag: string, after: number, limit: number) {
    const heads = (this.grains.get(grain) ?? []).filter((e) => e.version === 1 && e.kind === kind && e.seq > after).slice(0, limit);
    return heads.map(({ stream, seq }) => {
      const row = this.answers.get(stream);
      // Nothing here damages bytes: an item is current while its record stands at its own version.
      return { stream, seq, item: row && row.tag === tag && row.deps[0][1] === this.streams.get(stream)!.length ? row.item : null };
    });
  }

  async readAnswer(stream: string, tag: string) {
    const row = this.answers.get(stream);
    return row && row.tag === tag && this.fresh(row.deps) ? intact(row.grain, row.etag, row.body, row.crc) : null;
  }

  async readStream(stream: string) {
    return structuredClone(this.streams.get(stream) ?? []);
  }

  async readSnapshot(stream: string) {
    return this.snapshotOf(stream);
  }

  private snapshotOf(stream: string): StreamSnapshot | null {
    const row = this.snapshots.get(stream);
    if (!row) return null;
    const [, version, machine, state, , path, facets, since_seq, since] = row;
    return snapshotOf({ version, machine, state, path, facets, since_seq, since });
  }

  async readHead(stream: string) {
    const opened = this.streams.get(stream)?.[0];
    return opened ? this.headOf(opened) : null;
  }

  /** The opening event with the stream's snapshot, joined only while it reflects the stream's head (as the SQL adapters join it). */
  private headOf(opened: JournalEvent) {
    const snapshot = this.snapshotOf(opened.stream);
    const current = snapshot && snapshot.version === this.streams.get(opened.stream)!.length;
    return { opened: structuredClone(opened), snapshot: current ? snapshot : null };
  }

  async putSnapshot(stream: string, snapshot: StreamSnapshot) {
    const row = this.snapshots.get(stream);
    const head = this.streams.get(stream)?.length ?? 0;
    // As the SQL adapters: never over a later version the stream has reached.
    if (row && row[1] > snapshot.version && row[1] <= head) return;
    const entered = snapshot.standing && enteredOf(snapshot, []);
    this.snapshots.set(stream, snapshotRow(stream, snapshot.version, this.streams.get(stream)?.[0]?.grain ?? null, structuredClone(snapshot), entered ?? null));
  }

  async population(grain: string, machine: PopulationMachine): Promise<PopulationRows> {
    const mine = [...this.snapshots.values()].filter((r) => r[4] === grain && r[2] === machine.tag);
    const rows: PopulationRow[] = [];
    for (const path of [...new Set(mine.map((r) => r[5]))].sort()) {
      const group = mine.filter((r) => r[5] === path);
      const first = group.reduce<SnapshotRow | null>((least, r) => (r[7] !== null && (least === null || r[7] < least[7]!) ? r : least), null);
      const facets = Array.from({ length: machine.facets }, (_, i) => group.filter((r) => r[6] !== null && ((r[6] >> i) & 1) === 1).length);
      rows.push([path, group.length, group.reduce((n, r) => n + r[1], 0), first?.[0] ?? null, first?.[7] ?? null, first?.[8] ?? null, first?.[3] ?? null, first?.[1] ?? null, ...facets]);
    }
    const key = `${grain}\n${machine.tag}`;
    const ledger = this.ledgers.get(key);
    return {
      states: statesOf(rows),
      ledger: ledger ? { ...ledger } : null,
      transitions: [...(this.edges.get(key) ?? [])].sort(([a], [b]) => (a < b ? -1 : 1)).map(([edge, count]) => ({ edge, count })),
    };
  }

  async streamsInState(grain: string, tag: string, path: string, after: number, limit: number) {
    return [...this.snapshots.values()]
      .filter((r) => r[4] === grain && r[2] === tag && r[5] === path && r[7] !== null && r[7] > after)
      .sort((a, b) => a[7]! - b[7]!)
      .slice(0, limit)
      .map(([stream, version, , state, , , , seq, at]) => ({ stream, seq: seq!, at: at!, version, state }));
  }

  async resetPopulation(grain: string, machine: PopulationMachine, atSeq: number, counts: PopulationCounts) {
    if ((this.seqs.get(grain) ?? 0) !== atSeq) return false;
    const ofMachine = (tag: string) => tag.startsWith(`${machine.id}@`);
    for (const key of [...this.ledgers.keys()]) if (key.startsWith(`${grain}\n`) && ofMachine(key.slice(grain.length + 1))) this.ledgers.delete(key);
    for (const key of [...this.edges.keys()]) if (key.startsWith(`${grain}\n`) && ofMachine(key.slice(grain.length + 1))) this.edges.delete(key);
    for (const [stream, row] of this.snapshots) if (row[4] === grain && ofMachine(row[2]) && row[2] !== machine.tag) this.snapshots.delete(stream);
    const key = `${grain}\n${machine.tag}`;
    this.ledgers.set(key, { ...counts.ledger });
    this.edges.set(key, new Map(counts.transitions.map((t) => [t.edge, t.count])));
    return true;
  }

  async readTail(grain: string, { after, limit, feed }: TailQuery) {
    const tail = this.grains.get(grain) ?? [];
    return structuredClone(tail.filter((e) => e.seq > after && inFeed(feed, e)).slice(0, limit));
  }

  async latestSeq(grain: string) {
    return this.seqs.get(grain) ?? 0;
  }

  async streamVersion(stream: string) {
    return this.streams.get(stream)?.length ?? 0;
  }

  async streamHeads(grain: string, kind: string, after: number, limit: number) {
    const heads = (this.grains.get(grain) ?? []).filter((e) => e.version === 1 && e.kind === kind && e.seq > after);
    return heads.slice(0, limit).map((e) => ({ stream: e.stream, seq: e.seq, data: structuredClone(e.data) }));
  }

  async entityHeads(grain: string, kind: string, after: number, limit: number) {
    const heads = (this.grains.get(grain) ?? []).filter((e) => e.version === 1 && e.kind === kind && e.seq > after);
    return heads.slice(0, limit).map((e) => this.headOf(e));
  }

  async countStreams(grain: string, kind: string) {
    return (this.grains.get(grain) ?? []).filter((e) => e.version === 1 && e.kind === kind).length;
  }

  async readIntents(after: IntentCursor | null, limit: number) {
    const intents = [...this.grains.values()].flat().filter((e) => (INTENT_KINDS as readonly string[]).includes(e.kind));
    intents.sort((x, y) => (x.grain === y.grain ? x.seq - y.seq : x.grain < y.grain ? -1 : 1));
    const rest = after ? intents.filter((e) => e.grain > after.grain || (e.grain === after.grain && e.seq > after.seq)) : intents;
    return structuredClone(rest.slice(0, limit));
  }

  async pendingIntents(after: IntentCursor | null, limit: number) {
    const records = [...this.grains.values()].flat().filter((e) => e.kind === DELIVERY_KIND);
    const settled = new Set(records.map((e) => (e.data.intent as { grain: string; seq: number }).grain + ' ' + (e.data.intent as { seq: number }).seq));
    const pending: JournalEvent[] = [];
    for (let cursor = after; ; ) {
      const page = await this.readIntents(cursor, limit);
      pending.push(...page.filter((e) => !settled.has(`${e.grain} ${e.seq}`)));
      if (pending.length >= limit || page.length < limit) return pending.slice(0, limit);
      cursor = { grain: page[page.length - 1].grain, seq: page[page.length - 1].seq };
    }
  }

  async expiredGrains(before: string, limit: number) {
    const unfinished = [...this.purged].filter(([, done]) => !done).map(([grain]) => grain);
    const expired = [...this.streams.values()]
      .map((stream) => stream[0])
      .filter((e) => this.expiring(e) && (e.data.expiresAt as string) < before)
      .sort((a, b) => ((a.data.expiresAt as string) < (b.data.expiresAt as string) ? -1 : 1))
      .map((e) => e.grain);
    return [...unfinished, ...expired].slice(0, limit);
  }

  /** The opening of a TTL-bound grain: its own stream's first fact, of an expiring kind (retention.ts). */
  private expiring(e: JournalEvent | undefined): e is JournalEvent {
    return e !== undefined && e.version === 1 && e.stream === e.grain && (EXPIRING_OPENINGS as readonly string[]).includes(e.kind) && typeof e.data.expiresAt === 'string';
  }

  /** As the SQL adapters, in the same order: the caches of the grain's streams, its counts, the streams held for it, then its events, each step within its budget. */
  async purgeGrain(grain: string, budget: number): Promise<PurgeStep> {
    if (!this.purged.has(grain)) {
      if (!this.expiring(this.streams.get(grain)?.[0])) throw new NotPurgeable(grain);
      this.purged.set(grain, false);
    }
    const tail = this.grains.get(grain) ?? [];
    const streams = new Set(tail.map((e) => e.stream));
    const cached = [...streams].filter((s) => this.snapshots.has(s) || this.answers.has(s)).slice(0, budget);
    if (cached.length) {
      for (const s of cached) this.snapshots.delete(s), this.answers.delete(s);
      return { removed: cached.length, done: false };
    }
    const counts = [...this.ledgers.keys(), ...this.edges.keys()].filter((key) => key.startsWith(`${grain}\n`));
    if (counts.length) {
      for (const key of counts) this.ledgers.delete(key), this.edges.delete(key);
      return { removed: counts.length, done: false };
    }
    const held = [...this.streams.values()].filter((s) => s[0]?.version === 1 && (HELD_OPENINGS as readonly string[]).includes(s[0].kind) && s[0].data[HELD_BY] === grain);
    // Later events first: a stream stays held (its opening names whose it is) until the last of it goes.
    const heldRows = held.flatMap((stream) => [...stream].reverse()).slice(0, budget);
    const rows = heldRows.length ? heldRows : tail.slice(0, budget);
    for (const e of rows) {
      const events = this.streams.get(e.stream)!.filter((x) => x !== e);
      if (events.length) this.streams.set(e.stream, events);
      else this.streams.delete(e.stream);
      const grainTail = this.grains.get(e.grain)!.filter((x) => x !== e);
      if (grainTail.length || e.grain !== grain) this.grains.set(e.grain, grainTail);
      else this.grains.delete(e.grain);
    }
    if (rows.length) return { removed: rows.length, done: false };
    this.purged.set(grain, true);
    return { removed: 0, done: true };
  }

  async isPurged(grain: string) {
    return this.purged.has(grain);
  }

  async close() {}
}
