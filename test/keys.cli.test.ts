/**
 * `legalwork keys self`, `keys roll` and `keys revoke`, run as a child
 * process against a real listening service, acting as the key in
 * LEGALWORK_KEY: the successor is printed once (and told on stderr), the
 * rolled key answers as the service says, a revocation needs --yes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningApp, type TestApp } from './helpers/app.ts';
import { runCli } from './helpers/cli.ts';

let app: TestApp;
let url: string;
beforeAll(async () => ({ app, url } = await listeningApp()));
afterAll(async () => app.close());

const cli = (args: string[], key?: string) => runCli([...args, '--url', url], { env: { LEGALWORK_KEY: key } });

async function newKey(): Promise<string> {
  const issued = await cli(['keys', 'create', '--email', 'cli@legalwork.test', '--spend-ceiling', '500']);
  expect(issued.code).toBe(0);
  return issued.json.key as string;
}

describe('legalwork keys self, roll, revoke', { timeout: 90_000 }, () => {
  it('self says the key\'s state; roll prints the successor once and how long the old key lasts; the successor then reads the same owner', async () => {
    const key = await newKey();
    const self = await cli(['keys', 'self'], key);
    expect(self.code).toBe(0);
    expect(self.json).toMatchObject({ type: 'OK', key: { state: 'active', expiresAt: null }, owner: { spendCeilingUsd: 500, committedUsd: 0 } });

    const rolled = await cli(['keys', 'roll', '--expires-in', '3600'], key);
    expect(rolled.code).toBe(0);
    expect(rolled.json.key).toMatch(/^lwk_[A-Za-z0-9_-]{43}$/);
    expect(rolled.json.rolled).toMatchObject({ id: self.json.key.id, state: 'rolled', successorId: rolled.json.keyId });
    expect(rolled.stderr).toContain(`the successor ${rolled.json.keyId} is shown once`);
    expect(rolled.stderr).toContain(rolled.json.rolled.expiresAt);
    expect(rolled.stderr).not.toContain(rolled.json.key);

    const next = await cli(['keys', 'self'], rolled.json.key);
    expect(next.json).toMatchObject({ key: { id: rolled.json.keyId, predecessorId: self.json.key.id }, predecessor: { state: 'rolled' }, owner: { id: self.json.key.id } });
    const again = await cli(['keys', 'roll'], key);
    expect(again.code).toBe(1);
    expect(again.json.code).toBe('KEY_ALREADY_ROLLED');
  });

  it('roll --expires-in 0 ends the old key at once: it is then refused, naming the successor (exit 1)', async () => {
    const key = await newKey();
    const rolled = await cli(['keys', 'roll', '--expires-in', '0'], key);
    expect(rolled.code).toBe(0);
    const refused = await cli(['keys', 'self'], key);
    expect(refused.code).toBe(1);
    expect(refused.json).toMatchObject({ code: 'KEY_EXPIRED', successorId: rolled.json.keyId });
    expect(refused.stderr).toMatch(/refused \(401 KEY_EXPIRED\)/);
  });

  it('revoke needs --yes (exit 2, nothing sent); with it, the key is refused from then on', async () => {
    const key = await newKey();
    const unsure = await cli(['keys', 'revoke'], key);
    expect(unsure.code).toBe(2);
    expect(unsure.stderr).toMatch(/--yes/);
    expect((await cli(['keys', 'self'], key)).code).toBe(0);
    const revoked = await cli(['keys', 'revoke', '--yes'], key);
    expect(revoked.code).toBe(0);
    expect(revoked.json.key.state).toBe('revoked');
    const refused = await cli(['matters', 'list'], key);
    expect(refused.code).toBe(1);
    expect(refused.json.code).toBe('KEY_REVOKED');
  });

  it('refuses to act without LEGALWORK_KEY, and a malformed --expires-in, as usage errors (exit 2)', async () => {
    for (const args of [['keys', 'self'], ['keys', 'roll'], ['keys', 'revoke', '--yes']]) {
      const run = await cli(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/LEGALWORK_KEY/);
    }
    const key = await newKey();
    for (const value of ['-1', 'soon', '1.5']) expect((await cli(['keys', 'roll', '--expires-in', value], key)).code, value).toBe(2);
    const tooLong = await cli(['keys', 'roll', '--expires-in', '604801'], key);
    expect(tooLong.code).toBe(1);
    expect(tooLong.json.code).toBe('INVALID_REQUEST');
  });
});
