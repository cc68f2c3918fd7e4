/** An in-memory journal for unit tests only: same contract, no durability. */
import { inFeed, INTENT_KINDS, VersionConflict, type IntentCursor, type JournalEvent, type JournalStore, type StreamSnapshot, type StreamWrite, type TailQuery } from './store.ts';

export class MemoryJournal implements JournalStore {
  private readonly grains = new Map<string, JournalEvent[]>();
  private readonly streams = new Map<string, JournalEvent[]>();
  private readonly snapshots = new Map<string, StreamSnapshot>();

  async append(grain: string, writes: StreamWrite[]): Promise<JournalEvent[]> {
    for (const w of writes) {
      const actual = this.streams.get(w.stream)?.length ?? 0;
      if (actual !== w.expectedVersion) throw new VersionConflict(w.stream, w.expectedVersion, actual);
    }
    const written: JournalEvent[] = [];
    for (const w of writes) {
      const into = w.grain ?? grain;
      const tail = this.grains.get(into) ?? [];
      this.grains.set(into, tail);
      const stream = this.streams.get(w.stream) ?? [];
      this.streams.set(w.stream, stream);
      for (const e of w.events) {
        const event = structuredClone({ ...e, grain: into, seq: tail.length + 1, stream: w.stream, version: stream.length + 1 });
        tail.push(event);
        stream.push(event);
        written.push(event);
      }
      if (w.snapshot) this.snapshots.set(w.stream, { version: stream.length, ...w.snapshot });
    }
    return structuredClone(written);
  }

  async readStream(stream: string) {
    return structuredClone(this.streams.get(stream) ?? []);
  }

  async readSnapshot(stream: string) {
    return structuredClone(this.snapshots.get(stream) ?? null);
  }

  async readHead(stream: string) {
    const opened = this.streams.get(stream)?.[0];
    return opened ? this.headOf(opened) : null;
  }

  /** The opening event with the stream's snapshot, joined only while it reflects the stream's head (as the SQL adapters join it). */
  private headOf(opened: JournalEvent) {
    const snapshot = this.snapshots.get(opened.stream);
    const current = snapshot && snapshot.version === this.streams.get(opened.stream)!.length;
    return { opened: structuredClone(opened), snapshot: current ? structuredClone(snapshot) : null };
  }

  async putSnapshot(stream: string, snapshot: StreamSnapshot) {
    this.snapshots.set(stream, structuredClone(snapshot));
  }

  async readTail(grain: string, { after, limit, feed }: TailQuery) {
    const tail = this.grains.get(grain) ?? [];
    return structuredClone(tail.slice(after).filter((e) => inFeed(feed, e)).slice(0, limit));
  }

  async latestSeq(grain: string) {
    return this.grains.get(grain)?.length ?? 0;
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

  async close() {}
}
