/**
 * What a command writes. stdout carries exactly the JSON result (one document,
 * or one line per event when following), so an agent can parse it; people get
 * `--pretty`. Progress and diagnostics go to stderr, never stdout.
 */
import { EXIT, exitForStatus, type ExitCode } from './exit-codes.ts';
import type { ServiceAnswer, ServiceUnreachable } from '../client/service-client.ts';

export interface Streams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export class Output {
  constructor(
    readonly pretty: boolean,
    readonly streams: Streams,
  ) {}

  /** One JSON document on stdout. */
  json(value: unknown): void {
    this.streams.stdout.write(`${JSON.stringify(value, null, this.pretty ? 2 : undefined)}\n`);
  }

  /** A line for people on stderr. */
  progress(message: string): void {
    this.streams.stderr.write(`legalwork: ${message}\n`);
  }

  /**
   * Prints the service's answer and returns the exit code it means. A refusal
   * keeps its worded body on stdout (agents read it there) and is also named
   * on stderr for people.
   */
  answer(answer: ServiceAnswer): ExitCode {
    this.json(answer.body);
    const code = exitForStatus(answer.status);
    if (code !== EXIT.ok) {
      const body = answer.body as { error?: unknown; code?: unknown } | null;
      const worded = body && typeof body === 'object' && typeof body.error === 'string' ? body.error : typeof answer.body === 'string' ? answer.body.slice(0, 300) : 'no worded reason given';
      const label = code === EXIT.refused ? 'refused' : 'service failed';
      this.progress(`${label} (${answer.status}${body && typeof body === 'object' && typeof body.code === 'string' ? ` ${body.code}` : ''}): ${worded}`);
    }
    return code;
  }

  /** The service could not be reached. */
  unreachable(error: ServiceUnreachable): ExitCode {
    this.json(error.toBody());
    this.progress(error.message);
    return EXIT.unreachable;
  }
}
