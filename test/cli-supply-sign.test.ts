/**
 * `legalwork supply sign`: the headers it prints sign the exact body bytes,
 * as the service verifies them. Driven through the real CLI, against a real
 * listening service with the same supply network secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { listeningApp, type TestApp } from './helpers/app.ts';
import { runCli } from './helpers/cli.ts';
import { connectedTopLevel, registeredAttestation, SUPPLY_SECRET } from './helpers/supply.ts';

/** The printed header lines, as an object. */
const headersOf = (stdout: string) => Object.fromEntries(stdout.trim().split('\n').map((line) => line.split(/: (.*)/s).slice(0, 2)));

describe('legalwork supply sign', () => {
  let app: TestApp;
  let url: string;
  beforeAll(async () => ({ app, url } = await listeningApp(connectedTopLevel())));
  afterAll(async () => app.close());

  // Spacing and key order the CLI must keep: it signs the bytes, not a re-serialized copy.
  const BODY = '{ "outcome": "attested",  "gigId": "gig_0000000000000000000000000" }';

  it('prints three headers that verify over the exact bytes given', async () => {
    const run = await runCli(['supply', 'sign', '--secret', SUPPLY_SECRET, BODY]);
    expect(run.code).toBe(0);
    const headers = headersOf(run.stdout);
    expect(Object.keys(headers)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    expect(() => new Webhook(SUPPLY_SECRET).verify(BODY, headers)).not.toThrow();
    expect(() => new Webhook(SUPPLY_SECRET).verify(JSON.stringify(JSON.parse(BODY)), headers)).toThrow();
  });

  it('takes the secret from the environment, the body from stdin, and an id and timestamp when given', async () => {
    const run = await runCli(['supply', 'sign', '--json', '--id', 'msg_retry_1', '--timestamp', '1700000000', '-'], { env: { LEGALWORK_SUPPLY_SECRET: SUPPLY_SECRET }, input: BODY });
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ 'webhook-id': 'msg_retry_1', 'webhook-timestamp': '1700000000' });
    expect(run.json['webhook-signature']).toBe(new Webhook(SUPPLY_SECRET).sign('msg_retry_1', new Date(1700000000 * 1000), BODY));
  });

  it('reads the body from stdin when no argument is given', async () => {
    const run = await runCli(['supply', 'sign', '--id', 'msg_stdin', '--timestamp', '1700000000'], { env: { LEGALWORK_SUPPLY_SECRET: SUPPLY_SECRET }, input: BODY });
    expect(run.code).toBe(0);
    expect(headersOf(run.stdout)['webhook-signature']).toBe(new Webhook(SUPPLY_SECRET).sign('msg_stdin', new Date(1700000000 * 1000), BODY));
  });

  it('drives the top-level callback: signed, the service looks the Matter up; one byte changed, it is refused unsigned', async () => {
    const headers = headersOf((await runCli(['supply', 'sign', '--secret', SUPPLY_SECRET, BODY])).stdout);
    const send = (body: string) => fetch(`${url}/matters/mt_0000000000000000000000000/gig-result`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const signed = await send(BODY);
    expect(signed.status).toBe(404);
    expect(((await signed.json()) as { code: string }).code).toBe('MATTER_NOT_FOUND');
    const tampered = await send(BODY.replace('attested', 'declined'));
    expect(tampered.status).toBe(401);
    expect(((await tampered.json()) as { code: string }).code).toBe('SIGNATURE_INVALID');
  });

  it("answers a real Matter's pending Gig: the signed bytes (a trailing newline among them) are accepted once, and a retry is answered as the first time", async () => {
    const issued = await runCli(['keys', 'create', '--email', 'supply-sign@legalwork.test', '--url', url]);
    const order = await runCli(['orders', 'file-provisional', '--title', 'A signed kettle', '--inventor', 'Grace', '--list-fee', '199', '--url', url], { env: { LEGALWORK_KEY: issued.json.key } });
    expect(order.json.status).toBe('waiting_on_signer');
    const matterId: string = order.json.matterId;
    const body = `${JSON.stringify({ gigId: order.json.matter.pendingGigId, outcome: 'attested', attestation: registeredAttestation('a signed kettle') }, null, 2)}\n`;
    const headers = headersOf((await runCli(['supply', 'sign', '-'], { env: { LEGALWORK_SUPPLY_SECRET: SUPPLY_SECRET }, input: body })).stdout);
    const send = () => fetch(`${url}/matters/${matterId}/gig-result`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const accepted = await send();
    const acceptedText = await accepted.text();
    expect(accepted.status, acceptedText).toBe(200);
    expect(JSON.parse(acceptedText).matter).toMatchObject({ id: matterId, attestedActs: 1 });
    const retry = await send();
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.text()).toBe(acceptedText);
  });

  it('refuses a missing or malformed secret, a body that is not a JSON object and a malformed id or timestamp, worded, with the usage exit code', async () => {
    for (const [args, words] of [
      [['supply', 'sign', BODY], /--secret is required/],
      [['supply', 'sign', '--secret', 'whsec_short', BODY], /at least 24 random bytes/],
      [['supply', 'sign', '--secret', SUPPLY_SECRET, '{"gigId":'], /not valid JSON/],
      [['supply', 'sign', '--secret', SUPPLY_SECRET, '[1,2]'], /must be a JSON object/],
      [['supply', 'sign', '--secret', SUPPLY_SECRET, '--id', 'msg_1\nwebhook-id: msg_2', BODY], /--id must be/],
      [['supply', 'sign', '--secret', SUPPLY_SECRET, '--timestamp', 'soon', BODY], /--timestamp must be an integer/],
    ] as const) {
      const run = await runCli([...args]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(words);
      expect(run.stdout).toBe('');
    }
  });
});
