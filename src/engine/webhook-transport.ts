/**
 * One webhook delivery attempt over the wire: a POST of the signed payload,
 * no redirect followed (a 3xx is a failed attempt), at most `timeoutMs`
 * before the answer is complete, and at most 1 KiB of the receiver's body
 * read (the rest is dropped with the connection). The connection goes through
 * request-filtering-agent, which checks the address actually connected to:
 * a public address at the top level, loopback too in a sandbox grain.
 */
import { request as httpRequest, type Agent as HttpAgent } from 'node:http';
import { request as httpsRequest, type Agent as HttpsAgent } from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { LOOPBACK_ADDRESSES, type WebhookUrlPolicy } from '../domain/webhook-url.ts';

/** How much of a receiver's answer is read and kept. */
export const RESPONSE_BODY_LIMIT = 1024;

export interface Attempted {
  /** The receiver's status, or null when it never answered (refused, timed out, closed). */
  status: number | null;
  /** The first KiB of its body. */
  body: string;
  durationMs: number;
  /** Why there was no answer. */
  error?: string;
}

export interface WebhookTransport {
  post(url: string, headers: Record<string, string>, payload: string, policy: WebhookUrlPolicy, timeoutMs: number): Promise<Attempted>;
}

const agents = {
  topLevel: { http: new RequestFilteringHttpAgent(), https: new RequestFilteringHttpsAgent() },
  sandbox: { http: new RequestFilteringHttpAgent({ allowIPAddressList: LOOPBACK_ADDRESSES }), https: new RequestFilteringHttpsAgent({ allowIPAddressList: LOOPBACK_ADDRESSES }) },
};

function agentFor(url: URL, policy: WebhookUrlPolicy): HttpAgent | HttpsAgent | undefined {
  // Local development: the platform's own agent, any address.
  if (policy.allowPrivate) return undefined;
  const pair = policy.sandbox ? agents.sandbox : agents.topLevel;
  return url.protocol === 'https:' ? pair.https : pair.http;
}

export const httpTransport: WebhookTransport = {
  post(raw, headers, payload, policy, timeoutMs) {
    const url = new URL(raw);
    const started = performance.now();
    return new Promise((resolve) => {
      let settled = false;
      const done = (answer: Omit<Attempted, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve({ ...answer, durationMs: Math.round(performance.now() - started) });
      };
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(url, { method: 'POST', agent: agentFor(url, policy), headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), 'user-agent': 'legalwork-webhooks' } }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          done({ status: res.statusCode ?? null, body: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8') });
          res.destroy();
        };
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= RESPONSE_BODY_LIMIT) finish();
        });
        res.on('end', finish);
        res.on('error', finish);
      });
      const deadline = setTimeout(() => {
        done({ status: null, body: '', error: `no answer within ${timeoutMs} ms` });
        req.destroy();
      }, timeoutMs);
      req.on('error', (error) => done({ status: null, body: '', error: error.message }));
      req.end(payload);
    });
  },
};
