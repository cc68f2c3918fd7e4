/**
 * The commit bus: every journal append is announced here after it is durable,
 * never before. Tail and SSE subscribers listen; writers never wait on them.
 */
import { EventEmitter } from 'eventemitter3';
import type { JournalEvent } from '../journal/store.ts';

export interface BusEvents {
  committed: (events: JournalEvent[]) => void;
}

export type CommitBus = EventEmitter<BusEvents>;
export const createBus = (): CommitBus => new EventEmitter<BusEvents>();
