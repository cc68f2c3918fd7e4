/**
 * An item of a list whose stream cannot be read (issue 38): a page answers
 * the records it can read and, in the place of one it cannot (an event body
 * that is not JSON, events its machine no longer folds), this item. One bad
 * stream never fails the page it is on, nor shifts its cursor.
 *
 * The item is a `oneOf` branch beside the list's record: it alone holds
 * `unreadable` (the constant `true`), and the record, closed, never does,
 * so a value is one or the other and a client tells them apart by that
 * field (`'unreadable' in item`). It carries the record's id and the
 * refusal vocabulary (`code`, `error`, `fix`), never anything the stream
 * holds: no Client, no title, no body.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { At, EXAMPLE, Int, StrEx, Strict } from './common.ts';

/** The code every unreadable item carries. */
export const STREAM_UNREADABLE = 'STREAM_UNREADABLE';

export const UnreadableItem = {
  ...Strict({
    id: StrEx(EXAMPLE.matter, { description: 'the record\'s id: its stream in the journal' }),
    unreadable: Type.Literal(true, { description: 'always true: the record could not be read, and is named here in its place' }),
    code: Type.Literal(STREAM_UNREADABLE),
    error: StrEx(`Matter ${EXAMPLE.matter} cannot be read from the journal; the rest of the page is served, and paging goes on past it`),
    fix: StrEx(`GET /matters/${EXAMPLE.matter} answers why (the stream and the seq that does not read); report it to the operator with this answer's request-id, who finds the stream in the journal by its id`),
  }, 'a record of the list its stream cannot be read for: its id and why, in place of the record'),
  $id: 'UnreadableItem',
};
export type UnreadableItem = Static<typeof UnreadableItem>;

/**
 * An event of a grain's tail whose body cannot be read: its seq, when it was
 * written and the stream it is in, in place of the event (nothing the body
 * held). The page, its cursor and a stream of the tail go on past it.
 */
export const UnreadableEntry = {
  ...Strict({
    seq: Int,
    at: At(),
    subject: StrEx(EXAMPLE.matter, { description: 'the stream the event is in' }),
    unreadable: Type.Literal(true, { description: 'always true: the event could not be read, and is named here in its place' }),
    code: Type.Literal(STREAM_UNREADABLE),
    error: StrEx(`the event at seq 9 (of stream ${EXAMPLE.matter}) cannot be read from the journal; the tail goes on past it`),
    fix: StrEx('report it to the operator with its seq and this answer\'s request-id, who finds the event in the journal by its grain and seq'),
  }, 'an event of the tail whose body cannot be read: where it stands and why, in place of the event'),
  $id: 'UnreadableEntry',
};
export type UnreadableEntry = Static<typeof UnreadableEntry>;

export const UNREADABLE_COMPONENTS = [UnreadableItem, UnreadableEntry];

/** A list's item: the record, or the `UnreadableItem` in its place. */
export const OrUnreadable = <T extends TSchema>(record: T) => Type.Unsafe<Static<T> | UnreadableItem>({ oneOf: [record, { $ref: `${UnreadableItem.$id}#` }] });

/** A tail's entry: the event, or the `UnreadableEntry` in its place. */
export const OrUnreadableEntry = <T extends TSchema>(entry: T) => Type.Unsafe<Static<T> | UnreadableEntry>({ oneOf: [entry, { $ref: `${UnreadableEntry.$id}#` }] });
