/**
 * A record a list cannot read (issue 38). A page of a list reads each of its
 * records' streams; one whose events do not fold through its machine
 * (`ENTITY_UNREADABLE`) or whose event body is not JSON (`UnreadableEvent`)
 * is answered in its place as `Unreadable`, and the rest of the page as
 * usual: one bad stream costs its own record, never the page (a 500 did).
 * Any other failure (the database gone) still fails the page.
 */
import { Refusal } from '../domain/refusal.ts';
import { refusal } from '../domain/refusals.ts';
import { UnreadableEvent } from '../journal/store.ts';

/** A read by id of a stream with an event whose body does not read: refused as a stream its machine cannot fold, for it alone, naming the seq (never quoting the body). */
export const unreadableRefusal = (id: string, error: UnreadableEvent) => refusal('ENTITY_UNREADABLE', { detail: error.message, id }, { stream: error.stream, seq: error.seq });

/** `read`, with an event body that does not read refused as `unreadableRefusal` of `id`. */
export const refusingUnreadable = <T>(id: string, read: Promise<T>): Promise<T> =>
  read.catch((error: unknown) => {
    throw error instanceof UnreadableEvent ? unreadableRefusal(id, error) : error;
  });

/** The record `id` of a list, unreadable: `detail` says why, for the operator's log (it names the stream and seq, never a body). */
export class Unreadable {
  constructor(
    readonly id: string,
    readonly detail: string,
  ) {}
}

/** Why `error` makes a listed record unreadable; undefined when it is not a failure to read the stream. */
export function unreadableDetail(error: unknown): string | undefined {
  if (error instanceof UnreadableEvent) return error.message;
  if (error instanceof Refusal && error.code === 'ENTITY_UNREADABLE') return error.message;
  return undefined;
}

/** `read`'s record, or `Unreadable` when its stream cannot be read; any other failure is thrown. */
export async function orUnreadable<T>(id: string, read: () => Promise<T>): Promise<T | Unreadable> {
  try {
    return await read();
  } catch (error) {
    const detail = unreadableDetail(error);
    if (detail === undefined) throw error;
    return new Unreadable(id, detail);
  }
}
