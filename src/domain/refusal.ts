/**
 * One catalog of refusals. Every refusal has a status, a machine `code`, a
 * worded `error`, and (where the outcome is typed) a `type`. The Gate speaks
 * only to refuse; a refusal never writes.
 */
export type OutcomeType = 'OK' | 'EMPTY' | 'BLOCKED';

export class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly type?: OutcomeType,
  ) {
    super(message);
  }

  toBody() {
    return { ...(this.type ? { type: this.type } : {}), error: this.message, code: this.code, ...this.extra };
  }
}

export const refuse = {
  badRequest: (code: string, error: string, extra?: Record<string, unknown>) => new Refusal(400, code, error, extra),
  unprocessable: (code: string, error: string, extra?: Record<string, unknown>) => new Refusal(422, code, error, extra),
  conflict: (code: string, error: string, extra?: Record<string, unknown>) => new Refusal(409, code, error, extra),
  notFound: (code: string, error: string, extra?: Record<string, unknown>) => new Refusal(404, code, error, extra),
  /** 404 on a grain: a typed EMPTY naming the fix. */
  grainGone: (kind: 'workspace' | 'tenant' | 'firm', id: string) =>
    new Refusal(404, `${kind.toUpperCase()}_NOT_FOUND`, `${kind} ${id} does not exist or has expired`, { results: [], fix: `POST /${kind}s` }, 'EMPTY'),
  blocked: (status: 403 | 429, code: string, error: string, extra?: Record<string, unknown>) => new Refusal(status, code, error, extra, 'BLOCKED'),
  /** The Gate refuses a Proposal on a named rule; nothing is written. */
  gate: (rule: string, error: string, extra?: Record<string, unknown>) => new Refusal(422, `GATE_${rule.toUpperCase()}`, error, { rule, ...extra }),
};
