/**
 * What the adapters share about answer rows (`AnswerRow`, store.ts): the
 * check that a row's bytes are the ones written. A CRC-32 (zlib's, about a
 * microsecond for a Matter's 3 KiB) is kept beside the body and compared on
 * every read: a row a disk or a hand damaged reads as no row, and is built
 * again from the journal, never sent.
 */
import { crc32 } from 'node:zlib';
import type { KeptRow, ListedItem } from './store.ts';

export const checksumOf = (text: string): number => crc32(text);

/** Whether `text` is what was written under `crc` (drivers give a bigint column as text). */
const holds = (text: string, crc: number | string): boolean => checksumOf(text) === Number(crc);

/** The row as a read is sent it, or null when its bytes are not the ones written. */
export function intact(grain: string, etag: string, body: string, crc: number | string): KeptRow | null {
  return holds(body, crc) ? { grain, etag, body } : null;
}

/** A page's record with its item when the item's bytes are the ones written; null (build it) otherwise. */
export function listedItem(stream: string, seq: number | string, item: string | null, crc: number | string | null): ListedItem {
  return { stream, seq: Number(seq), item: item !== null && crc !== null && holds(item, crc) ? item : null };
}
