/**
 * Where a webhook may point (decisions.md, "Webhooks"): a top-level endpoint
 * is `https://` and never resolves to a loopback, private, link-local,
 * metadata or other non-public address; a sandbox grain's endpoint may also
 * be `http://` on loopback (a receiver on the developer's machine).
 * `LEGALWORK_WEBHOOK_ALLOW_PRIVATE=1` lifts the top-level rule for local
 * development and tests.
 *
 * Checked here when an endpoint is registered (every address the name
 * resolves to, so the refusal is worded), and again at every connection by
 * the transport's filtering agent (`engine/webhook-transport.ts`), which
 * checks the address actually connected to: a name that resolves elsewhere
 * later (DNS rebinding) is refused there.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface WebhookUrlPolicy {
  /** The endpoint belongs to a sandbox grain: loopback is allowed, over http too. */
  sandbox: boolean;
  /** LEGALWORK_WEBHOOK_ALLOW_PRIVATE=1: any address and scheme, for local development. */
  allowPrivate: boolean;
}

/** The loopback addresses a sandbox endpoint may reach, as the filtering agent names them. */
export const LOOPBACK_ADDRESSES = ['127.0.0.1', '::1'];

/** Why `address` may not be reached under `policy`, or null. */
export function addressProblem(address: string, policy: WebhookUrlPolicy): string | null {
  if (policy.allowPrivate) return null;
  const range = ipaddr.process(address).range();
  if (range === 'unicast') return null;
  if (policy.sandbox && range === 'loopback') return null;
  return `${address} is a ${range} address, not a public one`;
}

/** Why `raw` is not a webhook URL under `policy`, or null when it is one. Resolves the host name. */
export async function webhookUrlProblem(raw: string, policy: WebhookUrlPolicy, resolve: (host: string) => Promise<string[]> = resolveAll): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'it is not an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `its scheme is ${url.protocol.replace(':', '')}, not https`;
  if (url.username || url.password) return 'it carries credentials; put a secret in the path, or verify the signature instead';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    return `its host ${host} does not resolve`;
  }
  const problems = addresses.map((a) => addressProblem(a, policy)).filter((p): p is string => p !== null);
  if (problems.length) return `its host ${host} is not public: ${problems[0]}`;
  const loopbackOnly = addresses.every((a) => ipaddr.process(a).range() === 'loopback');
  if (url.protocol === 'http:' && !policy.allowPrivate && !(policy.sandbox && loopbackOnly)) return 'it is http://: a top-level endpoint is https:// (a sandbox endpoint may be http:// on loopback)';
  return null;
}

async function resolveAll(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
}
