/**
 * A Matter's answer kept as a row (issue 37, item 2: an inline read model):
 * what `GET /matters/{id}` sends for a Matter not in memory is one indexed
 * lookup (`JournalStore.readAnswer`) returning the bytes as they are stored,
 * with their ETag: nothing is folded, parsed, built or serialized. The row
 * keeps the Matter as a list shows it too, so an unfiltered page of
 * `GET /matters` is one statement (`listItems`) whose items are sent as
 * stored (`page`).
 *
 * **Written** after each commit of a Matter (its opening too), in its
 * mailbox behind the command that committed (`Supervisor.afterCommit`): the
 * answer is composed from the entity as committed, stamped and serialized
 * exactly as the door's route would, and kept by the journal's next
 * transaction. Not in the commit's own transaction: the answer shows each
 * fact's seq, which the journal gives as it appends. And by a read that
 * found no row fresh: the bytes the door built and sent are kept as they
 * went out (`KeptAnswers`). The answer a commit composes is kept in memory
 * too, beside the resident Matter (`kept`), for the read that follows.
 *
 * **Never the truth.** A row names every stream its bytes were built from,
 * with the version each stood at (the Matter's own and its Asset's ladder's;
 * the Asset's stream is its minting fact, never appended to); the journal
 * answers it only while each still stands there, while its tag is this
 * build's (`buildKey`: another build's views may word the same facts
 * otherwise), and while its CRC-32 holds. A missing, stale, foreign or
 * damaged row reads as none: the door folds the journal and keeps the row
 * again. A crash between a commit and its row loses nothing but the row.
 *
 * **The same bytes as the route.** The serializer is the route's own
 * (`serializers.ts` compiles one per schema, and this asks it for the very
 * schema the route was given, read off its onRoute), and the Matter doors of
 * every grain prefix answer GET with one schema: a mount whose schema
 * differs stops the start, rather than kept bytes differ from built ones.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { assetView, journalView, matterView } from '../domain/matter-view.ts';
import { reaches } from '../engine/grains.ts';
import { ladderStreamOf, ladderView, type LadderState } from '../engine/ladders.ts';
import { MATTER, type MatterEntity } from '../engine/matters.ts';
import type { AnswerRow, JournalEvent } from '../journal/store.ts';
import { buildKey } from '../lib/build-key.ts';
import { orUnreadable, Unreadable } from '../engine/unreadable.ts';
import { ok } from './envelopes.ts';
import { KeptAnswers } from './answer-bytes.ts';
import { etagOf, JSON_TYPE, sendKeptJson } from './etag.ts';
import { stamped } from './sandbox.ts';
import { buildSerializer, okBranchOf } from './serializers.ts';
import { unreadableItem } from './unreadable.ts';
import type { Services } from './services.ts';

/**
 * The largest answer kept as a row. A Matter's answer carries its whole
 * journal, and its row is rewritten at every commit: a Matter of many facts
 * would write its whole history again at each one. Past this size its reads
 * build the answer, as they did before rows (and its list item is built too).
 */
export const MAX_ROW_BYTES = 64 * 1024;

/** The routes whose answers are kept, as Fastify names them under each grain prefix: a Matter by id, and the list's pages. */
const BY_ID = /(^|\/)matters\/:id$/;
const LIST = /(^|\/)matters$/;

/** What `GET /matters/{id}` answers, from the Matter, its Asset's minting fact and its ladder. */
const answerOf = (entity: MatterEntity, minted: JournalEvent, ladder: LadderState | null) =>
  ok({ matter: matterView(entity), asset: { ...assetView(minted, [entity]), deadlineLadder: ladder && ladderView(ladder) }, journal: journalView(entity) });

/** A Matter's answer, once what it reads is read: the streams it depends on, and how to build it. */
export interface MatterRead {
  deps: AnswerRow['deps'];
  build(): ReturnType<typeof answerOf>;
}

type Serialize = (payload: unknown) => string;

/**
 * What a Matter's answer bytes are kept under: the grain asked from (a
 * sandbox's answer carries its grain's stamp) and the version of every
 * stream it is built from. Nothing of the caller: a read by id answers every
 * caller that reaches the Matter with the same bytes.
 */
export const answerKey = (grain: string, deps: AnswerRow['deps']): string => `${grain} ${deps.map(([, version]) => version).join(' ')}`;

export class StoredAnswers {
  private serialize?: Serialize;
  /** One item of a page of `GET /matters` (a Matter's view, or the `UnreadableItem` in its place). */
  private serializeItem?: Serialize;
  /** The schemas the serializers were taken for, by route shape: every mount must answer with the same. */
  private readonly schemas = new Map<RegExp, string>();
  private tagText?: string;
  /** The answer bytes kept beside each resident Matter, for every mount of the Matter doors. */
  readonly kept = new KeptAnswers();

  constructor(private readonly services: Services) {
    services.supervisor.afterCommit(MATTER, (entity) => this.keepCommitted(entity));
  }

  /** The tag this build's rows are written and read under. */
  private get tag(): string {
    return (this.tagText ??= `GET /matters/{id} ${buildKey()}`);
  }

  /**
   * Everything `GET /matters/{id}` reads for `entity`, read now (no await
   * between the reads and the versions they are kept under), and the answer
   * built from it on demand.
   */
  async read(entity: MatterEntity): Promise<MatterRead> {
    const minted = await this.services.matters.mintingOf(entity);
    const ladder: LadderState | null = await this.services.ladders.stateOf(entity.grain, minted.stream);
    return {
      deps: [[entity.id, entity.version], [ladderStreamOf(minted.stream), ladder?.version ?? 0]],
      build: () => answerOf(entity, minted, ladder),
    };
  }

  /**
   * Sends the row kept for Matter `id` when there is one fresh for this
   * request's grain, and says so; false: the door builds the answer. A
   * Matter in memory is answered from there, as cheaply, and newer on a
   * journal other processes write.
   */
  async send(request: FastifyRequest, reply: FastifyReply, id: string): Promise<boolean> {
    if (this.services.supervisor.isResident(id)) return false;
    const row = await this.services.journal.readAnswer(id, this.tag);
    // A row is the answer as its own grain is sent it (stamped there when a sandbox): sent only where that grain is reached.
    if (!row || !reaches(request.grain, row.grain)) return false;
    sendKeptJson(reply, row.body, row.etag);
    return true;
  }

  /**
   * Sends the page of `GET /matters` after seq `after` when its Matters
   * are there, and says so; false: the page is empty (the door answers its
   * typed EMPTY). One statement reads the page's Matters with their kept
   * items, which are sent as stored; a Matter whose item is not current is
   * read (`Supervisor.read`: in memory, its snapshot row, or its journal)
   * and its item serialized, or, its stream unreadable, named in its place.
   */
  async page(request: FastifyRequest, reply: FastifyReply, after: number, limit: number): Promise<boolean> {
    const serializeItem = this.serializeItem;
    if (!serializeItem) return false;
    const rows = await this.services.journal.listItems(request.grain, MATTER.openedKind, this.tag, after, limit);
    if (rows.length === 0) return false;
    const items = await Promise.all(rows.map(async ({ stream, item }) => item ?? serializeItem(await this.itemOf(request, stream))));
    // A full page names where the next starts (which may be empty), a short one is the last; the grain's stamp where a sandbox.
    const nextAfter = rows.length === limit ? rows[rows.length - 1].seq : null;
    const { provenance } = stamped(request.grain, {}) as { provenance?: unknown };
    reply.header('content-type', JSON_TYPE);
    reply.send(`{"type":"OK","results":[${items.join(',')}],"nextAfter":${nextAfter}${provenance ? `,"provenance":${JSON.stringify(provenance)}` : ''}}`);
    return true;
  }

  /** A listed Matter whose item is not kept: its view, or, its stream unreadable, the item in its place. */
  private async itemOf(request: FastifyRequest, stream: string) {
    const state = await orUnreadable(stream, () => this.services.supervisor.read(MATTER, stream, request.grain));
    if (state instanceof Unreadable) return unreadableItem(request, 'Matter', 'matters', state);
    // Listed from the grain's own streams: it is there, and the grain reaches it.
    return matterView(state!);
  }

  /** Keeps the bytes a door built and sent for `entity` (read by `read` as `deps`), with their tag, and its list item. */
  put(entity: MatterEntity, deps: AnswerRow['deps'], body: string, etag: string): void {
    if (!this.serializeItem || body.length > MAX_ROW_BYTES) return;
    const item = this.serializeItem(matterView(entity));
    this.services.journal.putAnswer({ stream: entity.id, grain: entity.grain, tag: this.tag, deps, etag, body, item }).catch(() => undefined);
  }

  /** After a commit: the answer composed and serialized as the route would send it to the Matter's own grain. */
  private async keepCommitted(entity: MatterEntity): Promise<void> {
    if (!this.serialize) return;
    const { deps, build } = await this.read(entity);
    const body = this.serialize(stamped(entity.grain, build()));
    const etag = etagOf(body, `"${entity.version}"`);
    this.put(entity, deps, body, etag);
    // The next read from the Matter's own grain (most often the writer's, right after) sends these bytes, built once.
    this.kept.offer(entity, answerKey(entity.grain, deps), body, etag);
  }

  /** Takes the serializers of the routes under `app` (an onRoute hook of the Matter doors' plugin, added before their routes). */
  install(app: FastifyInstance): void {
    const serializerOf = (schema: unknown, url: string) => buildSerializer(app.getSchemas(), {})({ schema: schema as object, method: 'GET', url, httpStatus: '200' }) as Serialize;
    app.addHook('onRoute', (route: RouteOptions) => {
      const shape = route.method !== 'GET' ? undefined : [BY_ID, LIST].find((r) => r.test(route.url));
      if (!shape) return;
      const schema = (route.schema?.response as Record<string, unknown> | undefined)?.[200];
      const text = JSON.stringify(schema);
      if ((this.schemas.get(shape) ?? text) !== text) throw new Error(`${route.url} answers with another schema than the other Matter doors: kept answers would differ from the bytes it sends`);
      this.schemas.set(shape, text);
      if (shape === BY_ID) this.serialize ??= serializerOf(schema, route.url);
      // A page's items: the item schema of its OK branch (a page or a typed EMPTY, told apart by `type`).
      else this.serializeItem ??= serializerOf(okBranchOf(schema)?.properties?.results?.items, route.url);
    });
  }
}

const perServices = new WeakMap<Services, StoredAnswers>();

/** The one `StoredAnswers` of `services` (every grain prefix's Matter doors share it, as they share the journal). */
export function storedAnswersOf(services: Services): StoredAnswers {
  let stored = perServices.get(services);
  if (!stored) perServices.set(services, (stored = new StoredAnswers(services)));
  return stored;
}
