/**
 * A refusal: a status, a machine `code`, a worded `error`, and (where the
 * outcome is typed) a `type`. Each is built from its entry in the one
 * catalog, `refusals.ts`; the Gate speaks only to refuse, and a refusal
 * never writes.
 */
export type OutcomeType = 'OK' | 'EMPTY' | 'BLOCKED';
/** A refusal is typed BLOCKED or EMPTY, never OK. */
export type RefusalType = Exclude<OutcomeType, 'OK'>;

export class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly type?: RefusalType,
  ) {
    super(message);
  }

  toBody() {
    return { ...(this.type ? { type: this.type } : {}), error: this.message, code: this.code, ...this.extra };
  }
}
