/**
 * Where the creation bound (`engine/creation-bound.ts`) counts its
 * admissions: a port the bound asks, kept beside the journal because its
 * shared implementation lives in the journal's database
 * (`postgres-admissions.ts`); the bound's own memory implements it for one
 * process.
 */

/** A ledger's answer: the slot was taken, or how many admissions the window holds and the oldest of them (ms). */
export type Admission = { admitted: true } | { admitted: false; count: number; oldestMs: number };

/**
 * Where admissions are counted. `admit` takes a slot in `key`'s rolling
 * window (admissions at instants > `nowMs - windowMs`) when fewer than
 * `limit` are in it, atomically per key: concurrent calls, from any process
 * sharing the ledger, never admit more than `limit`.
 */
export interface AdmissionLedger {
  admit(key: string, nowMs: number, windowMs: number, limit: number): Promise<Admission>;
}
