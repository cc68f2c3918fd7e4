/**
 * `legalwork supply sign`: signs a body as the supply network does, so an
 * operator (or a test) can drive the top-level Signer callback,
 * `POST /matters/{id}/gig-result`, with curl. Standard Webhooks, with the
 * `standardwebhooks` package the service verifies with; it signs the exact
 * bytes it is given (never a re-serialized copy) and calls no service.
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { SUPPLY_SECRET_SETTING, supplySecretOf } from '../../domain/supply-secret.ts';
import { optionalInt, optionalString, UsageError, type Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { readJsonBody } from '../json-input.ts';

const WEBHOOK_ID = /^[\x21-\x7e]{1,256}$/;

const sign: Command = {
  path: ['supply', 'sign'],
  summary: "Sign a gig-result body as the supply network: print its three Standard Webhooks headers.",
  description: [
    'Prints webhook-id, webhook-timestamp and webhook-signature, one header per line,',
    'for the exact bytes of <body> (inline JSON, @file, or - or nothing for stdin), signed with the',
    'supply network secret (--secret, else $LEGALWORK_SUPPLY_SECRET). Send the same bytes:',
    "  legalwork supply sign \"$BODY\" > headers",
    "  curl -XPOST $LEGALWORK_URL/matters/$M/gig-result -H 'content-type: application/json' -H @headers -d \"$BODY\"",
    'With --json, prints the headers as one JSON object. Calls no service.',
  ].join('\n'),
  args: [{ name: 'body', description: "the callback's JSON body: inline, @file, or - (or nothing) for stdin", optional: true }],
  options: {
    secret: { type: 'string', value: '<whsec_…>', description: "the supply network's signing secret (default: $LEGALWORK_SUPPLY_SECRET)" },
    id: { type: 'string', value: '<webhook-id>', description: "the message id (default: a fresh msg_<uuid>); a retry sends the same id" },
    timestamp: { type: 'string', value: '<unix seconds>', description: 'when it was signed (default: now); the service refuses one more than 5 minutes off' },
    json: { type: 'boolean', description: 'print the headers as one JSON object' },
  },
  async run(ctx) {
    let secret: string | undefined;
    try {
      secret = supplySecretOf(optionalString(ctx.values, 'secret') ?? ctx.env[SUPPLY_SECRET_SETTING], `--secret (or ${SUPPLY_SECRET_SETTING})`);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (!secret) throw new UsageError('--secret is required (or set LEGALWORK_SUPPLY_SECRET): the supply network secret, whsec_…');
    const id = optionalString(ctx.values, 'id') ?? `msg_${randomUUID()}`;
    // Printed as a header line: a space, a control character or a newline would break it (or add a header).
    if (!WEBHOOK_ID.test(id)) throw new UsageError(`--id must be 1 to 256 visible ASCII characters (no spaces), got ${JSON.stringify(id)}`);
    const at = optionalInt(ctx.values, 'timestamp', { min: 0 }) ?? Math.floor(Date.now() / 1000);
    // The options are checked before stdin is read. The body is parsed only to refuse what is not a JSON object; the signature covers the text as given.
    const body = (await readJsonBody(ctx.args.body ?? '-', '<body>')).text;
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(at), 'webhook-signature': new Webhook(secret).sign(id, new Date(at * 1000), body) };
    if (ctx.values.json === true) ctx.out.json(headers);
    else ctx.out.streams.stdout.write(Object.entries(headers).map(([name, value]) => `${name}: ${value}\n`).join(''));
    return EXIT.ok;
  },
};

export const supplyCommands = [sign];
