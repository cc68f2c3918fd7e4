/**
 * A guard every write of a request carries: a check joined to each append
 * the request's work makes, in the same transaction, so the append commits
 * only while the guard holds. The API key a request presents is one
 * (`keys.ts`): a key revoked while the request runs is checked again inside
 * the transaction of its next write, so that write commits before the
 * revocation or not at all.
 *
 * Found, as the request's Idempotency-Key claim is (`idempotency.ts`), through
 * the request's async context: every write goes through `Supervisor.append`,
 * which asks `writeGuard()`. Work beside the request that is not its own (a
 * key's spend bookkeeping, a webhook delivery, an effect's answer) runs
 * `unguarded`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { StreamWrite } from '../journal/store.ts';

export interface WriteGuard {
  /**
   * The check an append carries: a write with no events, whose expected
   * version the journal checks inside the append's transaction (a
   * `VersionConflict` on its stream when it moved). Null once the request
   * is over. Throws (a refusal) when the guard no longer holds: nothing is
   * appended.
   */
  check(): StreamWrite | null;
  /** The check's stream moved: read it again. Throws (a refusal) when the guard no longer holds; resolves when the append may be tried again. */
  moved(): Promise<void>;
}

const guards = new AsyncLocalStorage<WriteGuard>();

/** Runs `work` (the rest of a request) with its writes guarded. */
export const guardWrites = <T>(guard: WriteGuard, work: () => T): T => guards.run(guard, work);

/** The guard of the request whose work is appending, if any. */
export const writeGuard = (): WriteGuard | undefined => guards.getStore();

/** Runs `work` outside the request's guard: bookkeeping beside the request, not its own writes. */
export const unguarded = <T>(work: () => T): T => guards.exit(work);
