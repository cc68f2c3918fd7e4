/**
 * A GET that sends back the ETag of the answer it last saw (`If-None-Match`):
 * the service answers 304 with no body while the answer is the same bytes
 * (`src/http/etag.ts`), so a command that asks on a clock (`inspect
 * --follow` at the top level) is sent the answer only when it changed, and
 * neither parses nor compares an unchanged one.
 */
import { answerOf, type RequestOptions, type ServiceAnswer, type ServiceClient } from '../client/service-client.ts';

/** The answer, and the ETag to send next time (null when the door tags none, or refused). */
export interface Changed {
  unchanged: false;
  answer: ServiceAnswer;
  etag: string | null;
}
/** Unchanged since the ETag sent (a 304), or the answer. */
export type Polled = { unchanged: true } | Changed;

type GetOptions = Omit<RequestOptions, 'body' | 'form'>;

/** Asked with no ETag (the first time), the answer is always sent. */
export function getIfChanged(client: ServiceClient, path: string, etag: null, options?: GetOptions): Promise<Changed>;
export function getIfChanged(client: ServiceClient, path: string, etag: string | null, options?: GetOptions): Promise<Polled>;
export async function getIfChanged(client: ServiceClient, path: string, etag: string | null, options: GetOptions = {}): Promise<Polled> {
  const headers = etag === null ? options.headers : { ...options.headers, 'if-none-match': etag };
  const { response, bytes } = await client.requestBytes('GET', path, { ...options, ...(headers ? { headers } : {}) });
  if (response.status === 304 && etag !== null) return { unchanged: true };
  return { unchanged: false, answer: answerOf(response, new TextDecoder().decode(bytes)), etag: response.ok ? response.headers.get('etag') : null };
}
