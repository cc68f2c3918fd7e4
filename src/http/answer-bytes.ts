/**
 * Answer bytes kept with their record (issue 37, item 3: "a resident
 * Matter's answer bytes are kept per version and sent as they are").
 *
 * A read whose answer is a function of a few stream versions (a Matter by
 * id: its own, and its Asset's ladder's) keeps the bytes it last sent, with
 * their ETag, beside the live record they were built from, under a key that
 * names everything the answer depends on. A request whose key is the kept
 * one is sent those bytes as they are: nothing is built, serialized or
 * hashed, and a matching If-None-Match is answered 304 from the kept tag
 * (`tagKnown`, `etag.ts`). Any other key builds the answer as before, and
 * the bytes it sends replace the kept ones.
 *
 * **Never the truth.** The key is compared whole on every request, and the
 * versions in it are read from the record and the journal as they stand
 * (the supervisor checks a resident actor against its stream on a shared
 * journal), so a write anywhere the answer reads moves the key and the next
 * read rebuilds: read-your-writes holds as it did.
 *
 * **Filled by a commit too.** The answer a Matter's commit composes for its
 * row (`StoredAnswers.keepCommitted`) is offered here under the key a read
 * from the Matter's own grain computes, so the first read after a write is
 * a lookup as well, not a second build of the same bytes.
 *
 * **Bounded by what it hangs on.** The bytes are held in a WeakMap keyed by
 * the live record (the resident actor): one answer per resident record
 * (every mount of the door shares one `KeptAnswers`), forgotten with the
 * actor when the supervisor passivates it (its resident cap,
 * `residentActors`), or drops it after a failed append
 * or a write by another process. An answer is built from the actor's own
 * journal, so what it keeps is about the size of what the actor holds.
 *
 * **Where it sits.** The route's handler calls `sendKept` once it has read
 * what its answer depends on, and `keep` when it builds the answer instead;
 * the bytes are taken in this module's onSend, which the route's plugin
 * installs (`install`): a plugin's hooks run ahead of a route's own, so it
 * sees the 200's bytes before `etag.ts` may turn them into a 304, and a
 * polling client's first conditional read keeps them too.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bytesToKeep, etagOf, sendKeptJson, tagKnown } from './etag.ts';

interface Kept {
  key: string;
  bytes: Buffer;
  etag: string;
}

export class KeptAnswers {
  /** By live record: weak, so an answer lives no longer than its actor. */
  private readonly kept = new WeakMap<object, Kept>();
  /** Requests building an answer to keep: for whom, under which key, and who else keeps its bytes. */
  private readonly building = new WeakMap<FastifyRequest, { owner: object; key: string; alsoKeep?: (body: string, etag: string) => void }>();

  /**
   * Sends the bytes kept for `owner` when they were kept under `key`, with
   * their tag, and says so; false: none are, the caller builds the answer
   * (and calls `keep`).
   */
  sendKept(reply: FastifyReply, owner: object, key: string): boolean {
    const kept = this.kept.get(owner);
    if (kept === undefined || kept.key !== key) return false;
    sendKeptJson(reply, kept.bytes, kept.etag);
    return true;
  }

  /** Keeps `body`, built elsewhere for `owner` under `key` (the answer a commit composed for its row), as if a read had sent it. */
  offer(owner: object, key: string, body: string, etag: string): void {
    this.kept.set(owner, { key, bytes: bytesToKeep(body), etag });
  }

  /** The answer this request builds for `owner` is kept under `key`, once it is written and if it is a 200; and handed to `alsoKeep` (a row, `stored-answers.ts`). */
  keep(request: FastifyRequest, owner: object, key: string, alsoKeep?: (body: string, etag: string) => void): void {
    this.building.set(request, { owner, key, alsoKeep });
  }

  /** Takes a built answer's bytes and tags them (`etag.ts` then hashes nothing). Every other reply of the plugin passes untouched. */
  private readonly taken = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload?: unknown) => void): void => {
    const building = this.building.get(request);
    if (building === undefined) return done(null, payload);
    this.building.delete(request);
    if (reply.statusCode !== 200 || typeof payload !== 'string') return done(null, payload);
    // The record's version the handler tagged (`versions.ts`) stays in front of the digest, as `etag.ts` writes it.
    const version = reply.getHeader('etag');
    const etag = etagOf(payload, typeof version === 'string' ? version : undefined);
    this.offer(building.owner, building.key, payload, etag);
    building.alsoKeep?.(payload, etag);
    tagKnown(reply, etag);
    done(null, payload);
  };

  /** Installs the onSend that takes built answers, on the plugin whose routes keep them. */
  install(app: FastifyInstance): void {
    app.addHook('onSend', this.taken);
  }
}
