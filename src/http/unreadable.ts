/**
 * How a list answers a record it cannot read (`Unreadable`, from
 * `src/engine/unreadable.ts`): the `UnreadableItem` in its place, which names
 * the record's id and the door that says more, and a warning in the
 * operator's log with the stream, the seq and why (the caller's answer holds
 * none of what the stream holds: no Client, no title, no event body).
 */
import type { FastifyRequest } from 'fastify';
import { grainBase } from '../domain/links.ts';
import type { Unreadable } from '../engine/unreadable.ts';
import { STREAM_UNREADABLE, type UnreadableItem } from '../schemas/unreadable.ts';

/** The item in place of `record`, a `noun` of the list (`Matter`, `Asset`) readable by id at `door` (`matters`, `assets`). */
export function unreadableItem(request: FastifyRequest, noun: string, door: string, record: Unreadable): UnreadableItem {
  request.log.warn({ stream: record.id, detail: record.detail }, `a list served ${noun} ${record.id} as unreadable`);
  return {
    id: record.id,
    unreadable: true,
    code: STREAM_UNREADABLE,
    error: `${noun} ${record.id} cannot be read from the journal; the rest of the page is served, and paging goes on past it`,
    fix: `GET ${grainBase(request.grain)}/${door}/${encodeURIComponent(record.id)} answers why (the stream and the seq that does not read); report it to the operator with this answer's request-id, who finds the stream in the journal by its id`,
  };
}
