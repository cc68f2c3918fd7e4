/**
 * The same-work twins of the create and advance doors (issue 37, item 1): a
 * bare route that writes, without the engine, the very rows the door writes.
 *
 * What a door writes is not restated here: it is recorded. `recordWrites`
 * (run in the bench process) drives the real engine (`createServices`, the
 * composition the service runs) on the embedded journal and records every
 * `JournalStore.append` one create and each of a Matter's four advances make:
 * the grain, the stream writes (events, the snapshot row with its standing,
 * the transitions the population counts) and whatever else a write comes to
 * carry. The twin (`WriteTwin`, in the bare process) replays those appends,
 * one `append` per recorded append, in the same order, through the same
 * journal adapter the service writes with (its group commit, its writer
 * thread, its statements: every table and index row the adapter writes for
 * them), under fresh ids: every id the template minted (Matter, Asset,
 * ladder, Client, Gig) is replaced in every string it appears in (stream
 * keys, event bodies, snapshot states), so each request writes new keys at
 * random places in the B-trees, as a door does. So when the adapter or the
 * engine writes more per commit, the twin writes it too: the answer row each
 * command keeps after it (`putAnswer`, recorded from the app, whose Matter
 * routes keep them) is replayed as the door writes it, without waiting.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId, type IdPrefix } from '../../src/domain/ids.ts';
import type { AnswerRow, JournalStore, StreamWrite } from '../../src/journal/store.ts';

/** One `append` as the engine made it, or one answer row it kept after a command (`putAnswer`, which the door does not wait for). */
export type RecordedAppend = { grain: string; writes: StreamWrite[] } | { answer: AnswerRow };

/** What one create and each advance of one Matter hand the journal, and what the door answered them. */
export interface WriteTemplates {
  /** The sandbox workspace's grain the template Matter lives in. */
  grain: string;
  /** The template Matter's id. */
  matterId: string;
  create: RecordedAppend[];
  /** The appends of each advance, in order (a plain Matter takes four: three stage commits, one escalation). */
  advances: RecordedAppend[][];
  /** Appends the engine made after a call had answered (none expected): the twin does not replay them. */
  late: number;
}

/** The door's answers over HTTP (captured from the service): the twin sends the same bytes, the door's Matter id replaced by its own. */
export interface DoorAnswers {
  matterId: string;
  create: string;
  advances: string[];
}

/**
 * Records one create (`createBody`) and `advances` advances of the Matter it
 * opens, each as the engine hands it to the journal, on a SqliteJournal in a
 * temporary directory (removed after).
 */
export async function recordWrites(createBody: unknown, advanceBody: unknown, advances = 4): Promise<WriteTemplates> {
  const { createApp } = await import('../../src/compose.ts');
  const { SqliteJournal } = await import('../../src/journal/sqlite.ts');
  const { rmSync } = await import('node:fs');
  const dir = mkdtempSync(join(tmpdir(), 'legalwork-bench-record-'));
  const inner = new SqliteJournal(dir);
  let log: RecordedAppend[] = [];
  let late = 0;
  const journal = new Proxy(inner, {
    get(target, key) {
      if (key === 'append') {
        return (grain: string, writes: StreamWrite[]) => {
          log.push({ grain, writes: structuredClone(writes) });
          return target.append(grain, writes);
        };
      }
      if (key === 'putAnswer') {
        return (answer: AnswerRow) => {
          log.push({ answer: structuredClone(answer) });
          return target.putAnswer(answer);
        };
      }
      const value = (target as unknown as Record<string | symbol, unknown>)[key];
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as JournalStore;
  // The app, not the engine alone: the Matter doors' routes keep each Matter's answer row after its commits.
  const app = await createApp({ journal });
  try {
    const services = app.services;
    const grain = (await services.workspaces.open()).record.id;
    const during = async (call: () => Promise<unknown>): Promise<RecordedAppend[]> => {
      log = [];
      await call();
      const answered = log.length;
      await new Promise((done) => setTimeout(done, 50));
      // The answer rows kept behind the command are its work too (the door does not wait for them); anything
      // else written once the call has answered (an outbox retry, a webhook) is counted, not replayed.
      const after = log.slice(answered);
      late += after.filter((a) => !('answer' in a)).length;
      const made = [...log.slice(0, answered), ...after.filter((a) => 'answer' in a)];
      log = [];
      return made;
    };
    let matterId = '';
    const create = await during(async () => {
      matterId = (await services.matters.create(grain, createBody as never)).id;
    });
    const steps: RecordedAppend[][] = [];
    for (let i = 0; i < advances; i++) steps.push(await during(() => services.matters.advance(grain, matterId, advanceBody as never)));
    return { grain, matterId, create, advances: steps, late };
  } finally {
    await app.close();
    await inner.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every id `newId` mints: a kind's prefix and 25 base-36 digits. */
const ID = /\b(mt|as|gig|ws|tn|fm|doc|cl|key|rc|en|wh)_[0-9a-z]{25}\b/g;

/** Makes a value with the template's ids replaced by `ids` (index -> id); null where a value holds no id (it is shared as it is). */
type Maker = (ids: string[]) => unknown;

class Compiler {
  readonly index = new Map<string, number>();
  readonly prefixes: string[] = [];

  constructor(grain: string) {
    // Index 0 is the template's grain: always the twin's own grain, never a fresh id per Matter.
    this.indexOf(grain);
  }

  indexOf(id: string): number {
    let i = this.index.get(id);
    if (i === undefined) {
      i = this.prefixes.length;
      this.index.set(id, i);
      this.prefixes.push(id.slice(0, id.indexOf('_')));
    }
    return i;
  }

  /** The string as literal pieces and, between them, the index of the id that goes there; null when it holds none. */
  pattern(text: string): Array<string | number> | null {
    let out: Array<string | number> | null = null;
    let last = 0;
    for (const m of text.matchAll(ID)) {
      out ??= [];
      out.push(text.slice(last, m.index), this.indexOf(m[0]));
      last = m.index + m[0].length;
    }
    if (!out) return null;
    out.push(text.slice(last));
    return out;
  }

  value(v: unknown): Maker | null {
    if (typeof v === 'string') {
      const p = this.pattern(v);
      return p ? (ids) => fill(p, ids) : null;
    }
    if (Array.isArray(v)) {
      const parts = v.map((x) => this.value(x));
      if (parts.every((p) => p === null)) return null;
      return (ids) => v.map((x, i) => (parts[i] ? parts[i](ids) : x));
    }
    if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v).map(([k, x]) => [k, x, this.value(x)] as const);
      if (entries.every(([, , p]) => p === null)) return null;
      return (ids) => {
        const o: Record<string, unknown> = {};
        for (const [k, x, p] of entries) o[k] = p ? p(ids) : x;
        return o;
      };
    }
    return null;
  }
}

function fill(p: Array<string | number>, ids: string[]): string {
  let text = p[0] as string;
  for (let i = 1; i < p.length; i += 2) text += ids[p[i] as number] + (p[i + 1] as string);
  return text;
}

type CompiledAppend =
  | { grain: Maker | null; rawGrain: string; writes: Array<Maker | null>; rawWrites: StreamWrite[]; events: number }
  | { answer: Maker; events: 0 };

const compileAppends = (c: Compiler, appends: RecordedAppend[]): CompiledAppend[] =>
  appends.map((a): CompiledAppend =>
    'answer' in a
      ? { answer: c.value(a.answer)!, events: 0 }
      : { grain: c.value(a.grain), rawGrain: a.grain, writes: a.writes.map((w) => c.value(w)), rawWrites: a.writes, events: a.writes.reduce((n: number, w) => n + w.events.length, 0) },
  );

/** The journal a twin writes into, opened fresh (empty) for each row. */
export interface TwinJournals {
  open(): Promise<JournalStore>;
  /** Closes it and removes what it holds. */
  drop(journal: JournalStore): Promise<void>;
}

/** A door's answer with the door's Matter id cut out: the same bytes, another id of the same length. */
const answerPattern = (answer: string, matterId: string): string[] => answer.split(matterId);

/**
 * The twin: replays the recorded appends of a create, or of a Matter's next
 * advance, under fresh ids, and answers the door's bytes. One grain (a
 * sandbox workspace's, like the door's), fresh for each journal.
 */
export class WriteTwin {
  private journal: JournalStore | null = null;
  private ids: string[] = [];
  private grain = '';
  private create: CompiledAppend[] = [];
  private advances: CompiledAppend[][] = [];
  private prefixes: string[] = [];
  private matterIndex = 0;
  private answers: { create: string[]; advances: string[][] } = { create: [], advances: [] };
  /** Each Matter this twin opened: its ids (by the template's index) and how many advances it has taken. */
  private readonly matters = new Map<string, { ids: string[]; step: number }>();
  private opened: string[] = [];
  /** Events in the current journal. */
  events = 0;

  constructor(private readonly journals: TwinJournals) {}

  load(templates: WriteTemplates, answers: DoorAnswers): { eventsPerCreate: number; eventsPerAdvance: number[]; appendsPerAdvance: number[]; answerRows: number } {
    const c = new Compiler(templates.grain);
    this.create = compileAppends(c, templates.create);
    this.advances = templates.advances.map((a) => compileAppends(c, a));
    this.prefixes = c.prefixes;
    this.matterIndex = c.indexOf(templates.matterId);
    this.answers = { create: answerPattern(answers.create, answers.matterId), advances: answers.advances.map((a) => answerPattern(a, answers.matterId)) };
    const count = (as: CompiledAppend[]) => as.reduce((n, a) => n + a.events, 0);
    const appends = (as: CompiledAppend[]) => as.filter((a) => !('answer' in a)).length;
    const answerRows = [this.create, ...this.advances].reduce((n, as) => n + as.length - appends(as), 0);
    return { eventsPerCreate: count(this.create), eventsPerAdvance: this.advances.map(count), appendsPerAdvance: this.advances.map(appends), answerRows };
  }

  /** The writes of one recorded append for the Matter whose ids are `ids` (an id first met here is minted now). */
  private instantiate(a: Exclude<CompiledAppend, { answer: Maker }>, ids: string[]): { grain: string; writes: StreamWrite[] } {
    this.mint(ids);
    return {
      grain: a.grain ? (a.grain(ids) as string) : a.rawGrain,
      writes: a.writes.map((make, i) => (make ? (make(ids) as StreamWrite) : a.rawWrites[i])),
    };
  }

  private mint(ids: string[]): void {
    for (let i = 0; i < this.prefixes.length; i++) ids[i] ??= newId(this.prefixes[i] as IdPrefix);
  }

  /** Replays one recorded write: an append, durable before the next; an answer row kept, not waited for (as the door). */
  private async replay(journal: JournalStore, a: CompiledAppend, ids: string[]): Promise<void> {
    if ('answer' in a) {
      this.mint(ids);
      void journal.putAnswer(a.answer(ids) as AnswerRow).catch(() => undefined);
      return;
    }
    const { grain, writes } = this.instantiate(a, ids);
    await journal.append(grain, writes);
    this.events += a.events;
  }

  private newMatter(): { id: string; ids: string[] } {
    const ids: string[] = [this.grain];
    for (let i = 1; i < this.prefixes.length; i++) ids[i] = newId(this.prefixes[i] as IdPrefix);
    return { id: ids[this.matterIndex], ids };
  }

  /**
   * A fresh, empty journal filled to `events` events with created Matters
   * (their appends batched, `batch` Matters a transaction), like the door's
   * journal at that moment; answers the ids of the last `keep` Matters.
   */
  async reset(events: number, keep: number, batch = 500): Promise<{ events: number; matters: number; pool: string[]; seconds: number }> {
    const started = performance.now();
    if (this.journal) await this.journals.drop(this.journal);
    this.journal = null;
    this.matters.clear();
    this.opened = [];
    this.events = 0;
    this.grain = newId('ws');
    const journal = await this.journals.open();
    this.journal = journal;
    while (this.events < events) {
      const writes: StreamWrite[] = [];
      const byGrain = new Map<string, StreamWrite[]>();
      for (let i = 0; i < batch && this.events < events; i++) {
        const m = this.newMatter();
        for (const a of this.create) {
          // The fill writes the events a journal of that size holds; the answer rows of its Matters are a cache it may lack.
          if ('answer' in a) continue;
          const { grain, writes: ws } = this.instantiate(a, m.ids);
          if (grain === this.grain) writes.push(...ws);
          else byGrain.set(grain, [...(byGrain.get(grain) ?? []), ...ws]);
          this.events += a.events;
        }
        this.matters.set(m.id, { ids: m.ids, step: 0 });
        this.opened.push(m.id);
      }
      await journal.append(this.grain, writes);
      for (const [grain, ws] of byGrain) await journal.append(grain, ws);
    }
    return { events: this.events, matters: this.opened.length, pool: this.opened.slice(-keep), seconds: (performance.now() - started) / 1000 };
  }

  private get open(): JournalStore {
    if (!this.journal) throw new Error('the twin has no journal yet: POST /twin/reset first');
    return this.journal;
  }

  /** A create's appends, in order, each one durable transaction; answers the door's create answer with the new Matter's id. */
  async createOne(): Promise<string> {
    const journal = this.open;
    const m = this.newMatter();
    for (const a of this.create) await this.replay(journal, a, m.ids);
    this.matters.set(m.id, { ids: m.ids, step: 0 });
    this.opened.push(m.id);
    return this.answers.create.join(m.id);
  }

  /** The Matter's next advance's appends, in order; null for a Matter this twin never opened or one past its advances. */
  async advanceOne(id: string): Promise<string | null> {
    const journal = this.open;
    const m = this.matters.get(id);
    if (!m || m.step >= this.advances.length) return null;
    const step = m.step++;
    for (const a of this.advances[step]) await this.replay(journal, a, m.ids);
    return this.answers.advances[step].join(id);
  }

  async close(): Promise<void> {
    if (this.journal) await this.journals.drop(this.journal);
    this.journal = null;
  }
}
