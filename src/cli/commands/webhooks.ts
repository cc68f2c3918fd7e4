/**
 * `legalwork webhooks listen` and `legalwork webhooks verify` (issue 15): a
 * developer's receiver, as `stripe listen` is. `listen` opens a receiver on
 * loopback, registers it as a webhook endpoint (inside `--workspace`, or the
 * key's own at the top level), checks each delivery's signature with the
 * secret the registration showed, forwards it to `--forward-to` with its
 * headers, and answers the service with what the forward answered; one JSON
 * line per event on stdout. On SIGINT or SIGTERM it disables the endpoint, so
 * the service stops retrying a receiver that is gone. `verify` checks a
 * payload against its three Standard Webhooks headers.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_SUBSCRIPTIONS, type WebhookSubscription } from '../../domain/webhook-events.ts';
import { optionalInt, optionalString, requiredString, UsageError, type Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { readJsonBody } from '../json-input.ts';

const SIGNED_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Why a delivery's signature does not verify with `secret`, or null when it does. */
function signatureProblem(secret: string, body: string, headers: Record<string, string | undefined>): string | null {
  const missing = SIGNED_HEADERS.filter((name) => !headers[name]);
  if (missing.length) return `missing ${missing.join(', ')}`;
  try {
    new Webhook(secret).verify(body, { 'webhook-id': headers['webhook-id']!, 'webhook-timestamp': headers['webhook-timestamp']!, 'webhook-signature': headers['webhook-signature']! });
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

const listen: Command = {
  path: ['webhooks', 'listen'],
  summary: 'Receive webhook deliveries on this machine and forward them to a local URL.',
  description: [
    'Opens a receiver on 127.0.0.1, registers it as a webhook endpoint (POST /webhooks: inside',
    '--workspace, keyless; at the top level, the key\'s own, which needs a service that allows',
    'loopback endpoints: LEGALWORK_WEBHOOK_ALLOW_PRIVATE=1), verifies each delivery\'s signature,',
    'POSTs it to --forward-to with its headers, and answers the service with the forward\'s status',
    '(502 when the forward fails, 400 for a bad signature). One JSON line per event on stdout.',
    'SIGINT or SIGTERM disables the endpoint and exits 0.',
  ].join('\n'),
  grain: true,
  remote: true,
  options: {
    'forward-to': { type: 'string', value: '<url>', description: 'where each verified delivery is POSTed (e.g. http://127.0.0.1:8080/hook)' },
    events: { type: 'string', value: '<types>', description: 'comma-separated event types to receive (default *; e.g. outcome.filed,reminder.*)' },
    port: { type: 'string', value: '<n>', description: 'the receiver\'s port on 127.0.0.1 (default: any free one)' },
    'max-events': { type: 'string', value: '<n>', description: 'stop (and disable the endpoint) after this many events' },
  },
  async run(ctx) {
    const forwardTo = requiredString(ctx.values, 'forward-to');
    try {
      new URL(forwardTo);
    } catch {
      throw new UsageError(`--forward-to must be an absolute URL, got ${JSON.stringify(forwardTo)}`);
    }
    const events = (optionalString(ctx.values, 'events') ?? '*').split(',').map((e) => e.trim()).filter(Boolean);
    const unknown = events.filter((e) => !(WEBHOOK_SUBSCRIPTIONS as readonly string[]).includes(e));
    if (unknown.length) throw new UsageError(`--events: unknown event type ${unknown.join(', ')} (one of ${WEBHOOK_SUBSCRIPTIONS.join(', ')})`);
    const port = optionalInt(ctx.values, 'port', { min: 0, max: 65_535 }) ?? 0;
    const maxEvents = optionalInt(ctx.values, 'max-events', { min: 1 });
    const client = ctx.client();

    let secret = '';
    let seen = 0;
    const stop = new AbortController();
    const server = createServer((req, res) => {
      void (async () => {
        const body = await bodyOf(req);
        const headers = Object.fromEntries(SIGNED_HEADERS.map((name) => [name, req.headers[name] as string | undefined]));
        const problem = signatureProblem(secret, body, headers);
        let type: string | undefined;
        try {
          type = (JSON.parse(body) as { type?: string }).type;
        } catch {
          type = undefined;
        }
        if (problem) {
          ctx.out.json({ id: headers['webhook-id'] ?? null, type: type ?? null, signature: 'invalid', why: problem });
          res.writeHead(400).end('signature does not verify');
          return;
        }
        let forwarded: number | string;
        try {
          const answer = await fetch(forwardTo, { method: 'POST', headers: { 'content-type': 'application/json', ...(headers as Record<string, string>) }, body, redirect: 'manual', signal: AbortSignal.timeout(9_000) });
          forwarded = answer.status;
          await answer.arrayBuffer();
        } catch (error) {
          forwarded = `unreachable: ${(error as Error).message}`;
        }
        ctx.out.json({ id: headers['webhook-id'], type, signature: 'verified', forwarded });
        res.writeHead(typeof forwarded === 'number' ? forwarded : 502).end();
        if (maxEvents !== undefined && ++seen >= maxEvents) stop.abort();
      })();
    });
    await new Promise<void>((ok, fail) => server.once('error', fail).listen(port, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const registered = await client.request('POST', `${ctx.prefix}/webhooks`, { body: { url, events: events as WebhookSubscription[], description: `legalwork webhooks listen -> ${forwardTo}` } });
    if (!registered.ok) {
      server.close();
      return ctx.out.answer(registered);
    }
    const { webhook, secret: shown } = registered.body as { webhook: { id: string }; secret: string };
    secret = shown;
    ctx.out.progress(`listening on ${url} as webhook endpoint ${webhook.id}, forwarding to ${forwardTo} (Ctrl-C to stop)`);
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      await new Promise((done) => stop.signal.addEventListener('abort', done, { once: true }));
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      // The receiver goes away: the service must not retry into the void for days.
      await client.request('POST', `${ctx.prefix}/webhooks/${webhook.id}/disable`).catch(() => undefined);
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
      ctx.out.progress(`stopped; webhook endpoint ${webhook.id} disabled`);
    }
    return EXIT.ok;
  },
};

const verify: Command = {
  path: ['webhooks', 'verify'],
  summary: 'Check a webhook payload against its signature headers (for a receiver testing its setup).',
  description: [
    'Reads the payload\'s exact bytes from <body> (inline, @file, or - or nothing for stdin) and checks',
    'webhook-signature over them with --secret (the endpoint\'s whsec_…, shown once by POST /webhooks).',
    'Exit 0 when it verifies; 1 when it does not, with the reason. Calls no service.',
  ].join('\n'),
  args: [{ name: 'body', description: 'the payload as received: inline, @file, or - (or nothing) for stdin', optional: true }],
  options: {
    secret: { type: 'string', value: '<whsec_…>', description: 'the endpoint\'s signing secret' },
    id: { type: 'string', value: '<webhook-id>', description: 'the webhook-id header' },
    timestamp: { type: 'string', value: '<unix seconds>', description: 'the webhook-timestamp header (more than 5 minutes off does not verify)' },
    signature: { type: 'string', value: '<v1,…>', description: 'the webhook-signature header' },
  },
  async run(ctx) {
    const secret = requiredString(ctx.values, 'secret');
    if (!/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret)) throw new UsageError('--secret must be the endpoint\'s whsec_… secret');
    const headers = { 'webhook-id': requiredString(ctx.values, 'id'), 'webhook-timestamp': requiredString(ctx.values, 'timestamp'), 'webhook-signature': requiredString(ctx.values, 'signature') };
    const body = (await readJsonBody(ctx.args.body ?? '-', '<body>')).text;
    const problem = signatureProblem(secret, body, headers);
    ctx.out.json(problem ? { verified: false, why: problem } : { verified: true, id: headers['webhook-id'] });
    return problem ? EXIT.refused : EXIT.ok;
  },
};

export const webhookCommands = [listen, verify];
