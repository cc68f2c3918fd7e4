import type { NewEvent } from '../../src/journal/store.ts';

/** A stage commit as an advance journals it, for the benchmarks that append without the engine. */
export function stageEvent(subject: string, note: string, at: string): NewEvent {
  return { kind: 'stage', at, subject, summary: note, verb: 'prepare', by: 'gate', data: { proposedBy: 'agent' }, cause: { type: 'ADVANCE', by: 'agent', note } };
}
