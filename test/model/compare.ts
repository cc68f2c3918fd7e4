/** What every model adapter holds the service to: the same view as the machine, and refusals that explain themselves. */

import { canonicalJson as canonical } from '../../src/domain/hash.ts';

/** Throws, showing both sides, when the service's value and the machine's differ (compared as JSON, keys in any order). */
export function assertEqual(got: unknown, want: unknown, what: string): void {
  const a = canonical(got);
  const b = canonical(want);
  if (a !== b) throw new Error(`${what} differs\n  service: ${a}\n  machine: ${b}`);
}

/** A door's answer as the runner takes it: 2xx is accepted; a refusal must carry a worded error and a code. */
export function doorAnswer(res: { status: number; body: any; raw: string }): { accepted: boolean; status: number; body: any } {
  const accepted = res.status >= 200 && res.status < 300;
  if (!accepted && (typeof res.body?.error !== 'string' || typeof res.body?.code !== 'string')) {
    throw new Error(`a refusal must carry a worded error and a code, got ${res.status} ${res.raw}`);
  }
  return { accepted, status: res.status, body: res.body };
}
