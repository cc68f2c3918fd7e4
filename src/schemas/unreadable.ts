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
import { EXAMPLE, StrEx, Strict } from './common.ts';

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

export const UNREADABLE_COMPONENTS = [UnreadableItem];

/** A list's item: the record, or the `UnreadableItem` in its place. */
export const OrUnreadable = <T extends TSchema>(record: T) => Type.Unsafe<Static<T> | UnreadableItem>({ oneOf: [record, { $ref: `${UnreadableItem.$id}#` }] });
