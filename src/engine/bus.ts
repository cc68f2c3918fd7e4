/**
 * The commit bus: every journal append is announced here after it is durable,
 * never before. Tail and SSE subscribers listen; writers never wait on them.
 * On a journal other processes share, their commits are announced too, by
 * grain and seq only (`committedElsewhere`): a listener reads the journal.
 */
import { EventEmitter } from 'eventemitter3';
import type { JournalEvent } from '../journal/store.ts';

export interface BusEvents {
  committed: (events: JournalEvent[]) => void;
  /** Another process committed to `grain`, through `seq`; grain null: some commits may have gone unheard, read the journal again. */
  committedElsewhere: (grain: string | null, seq: number) => void;
}

export type CommitBus = EventEmitter<BusEvents>;
export const createBus = (): CommitBus => new EventEmitter<BusEvents>();
