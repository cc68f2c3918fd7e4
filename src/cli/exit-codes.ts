/**
 * Exit codes of the `legalwork` command. They tell apart the outcomes a
 * script must treat differently: the service said no (fix the request), the
 * service failed (retry later), and the service could not be reached at all
 * (check the address; nothing is known to have happened).
 */
export const EXIT = {
  /** The service answered 2xx (or the command finished its work). */
  ok: 0,
  /** The service refused the request with a 4xx; the worded refusal is on stdout. */
  refused: 1,
  /** The command line was wrong (unknown command or option, missing argument). */
  usage: 2,
  /** No answer: connection refused, unknown host, timeout. */
  unreachable: 3,
  /** The service answered 5xx. */
  serviceError: 4,
  /** The command itself broke (a bug, not an answer of the service). */
  internal: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code for an HTTP status the service answered. */
export function exitForStatus(status: number): ExitCode {
  if (status >= 200 && status < 300) return EXIT.ok;
  if (status >= 500) return EXIT.serviceError;
  return EXIT.refused;
}
