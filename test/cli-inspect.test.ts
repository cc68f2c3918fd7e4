/**
 * `legalwork inspect <matterId>` (issue 35, item 3), run as a real child
 * process against the real app on a real port: the path and the doors as
 * text, `--json` as the service answers, `--at` for time travel, a refusal's
 * exit code, and `--follow` printing the Matter again as a fact commits, in
 * a workspace (its event stream) and at the top level (asked on a clock).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, issueKey, listeningApp, type TestApp } from './helpers/app.ts';
import { runCli, startCli, stop, until } from './helpers/cli.ts';

let app: TestApp;
let url: string;
let W: string;
let workspaceId: string;
let matterId: string;

const cli = (args: string[], env: Record<string, string | undefined> = {}) => runCli([...args, '--url', url], { env });

beforeAll(async () => {
  ({ app, url } = await listeningApp());
  workspaceId = (await call(app, 'POST', '/workspaces')).body.workspace.id;
  W = `/workspaces/${workspaceId}`;
  matterId = (await call(app, 'POST', `${W}/matters`, { matterType: 'patent_provisional', client: { name: 'Ada Inventor' } })).body.matter.id;
  for (let i = 0; i < 4; i++) expect((await call(app, 'POST', `${W}/matters/${matterId}/advance`, {})).status).toBe(200);
});
afterAll(async () => app?.close());

describe('legalwork inspect', () => {
  it('prints the path, the state, the doors open now and every refusal, as text', async () => {
    const run = await cli(['inspect', matterId, '--workspace', workspaceId]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Matter ${matterId} on matter@1, as of seq`);
    expect(run.stdout).toContain('state: open.waiting_on_signer (waiting_on_signer) [awaiting-signer]');
    expect(run.stdout).toMatch(/path \(5 facts\):/);
    expect(run.stdout).toMatch(/ESCALATE\s+open\.review -> open\.waiting_on_signer/);
    expect(run.stdout).toMatch(/gig-result\.attested\s+POST \/workspaces\/\S+\/gig-result/);
    expect(run.stdout).toMatch(/advance\s+409 MATTER_WAITING_ON_SIGNER: /);
    expect(run.stdout).toContain(`page: ${W}/matters/${matterId}/inspect`);
  });

  it('--json prints the service\'s answer; --at answers as of an earlier fact', async () => {
    const json = await cli(['inspect', matterId, '--workspace', workspaceId, '--json']);
    expect(json.code).toBe(0);
    const served = (await call(app, 'GET', `${W}/matters/${matterId}/inspection`)).body;
    expect(json.json).toEqual(served);
    const second = served.inspection.path[1].seq;
    const then = await cli(['inspect', matterId, '--workspace', workspaceId, '--json', '--at', String(second)]);
    expect(then.json.inspection.at).toEqual({ seq: second, version: 2, latest: false });
    expect(then.json.inspection.state.status).toBe('prepare');
    const text = await cli(['inspect', matterId, '--workspace', workspaceId, '--at', String(second)]);
    expect(text.stdout).toContain(`as of seq ${second} (version 2; now it is at seq ${served.inspection.head.seq}`);
  });

  it('a refusal is exit 1 with its worded body; a bad command line is exit 2', async () => {
    const missing = await cli(['inspect', 'mt_0000000000000000000000000', '--workspace', workspaceId]);
    expect(missing.code).toBe(1);
    expect(missing.json.code).toBe('MATTER_NOT_FOUND');
    expect(missing.stderr).toContain('refused (404 MATTER_NOT_FOUND)');
    const before = await cli(['inspect', matterId, '--workspace', workspaceId, '--at', '0']);
    expect(before.code).toBe(1);
    expect(before.json.code).toBe('INSPECTION_BEFORE_OPENING');
    expect((await cli(['inspect', matterId, '--at', 'soon'])).code).toBe(2);
    expect((await cli(['inspect', matterId, '--follow', '--at', '3'])).code).toBe(2);
    expect((await cli(['inspect'])).code).toBe(2);
  });

  it('an Asset id inspects its Deadline Ladder', async () => {
    const assetId = (await call(app, 'GET', `${W}/matters/${matterId}`)).body.matter.assetId;
    const run = await cli(['inspect', assetId, '--workspace', workspaceId]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Deadline Ladder of Asset ${assetId} on deadline-ladder@1`);
    expect(run.stdout).toMatch(/tick\s+POST /);
  });

  it('--follow prints the Matter again when a fact commits (a workspace\'s event stream), and stops on Ctrl-C with exit 0', { timeout: 60_000 }, async () => {
    const m = (await call(app, 'POST', `${W}/matters`, { matterType: 'patent_provisional' })).body.matter.id;
    const follower = startCli(['inspect', m, '--workspace', workspaceId, '--follow', '--json', '--url', url]);
    try {
      const lines = () => follower.out.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
      await until(() => lines().length === 1 && follower.out.stderr.includes('following'), () => `the first inspection and the stream (${follower.out.stderr})`);
      expect((await call(app, 'POST', `${W}/matters/${m}/advance`, {})).status).toBe(200);
      await until(() => lines().some((l) => l.inspection.state.status === 'prepare'), 'the advance to be printed');
      expect(lines().at(-1).inspection.path).toHaveLength(2);
      await stop(follower.child, 'SIGINT');
      expect(follower.child.exitCode).toBe(0);
    } finally {
      await stop(follower.child, 'SIGKILL');
    }
  });

  it('--follow at the top level asks on a clock (a Matter\'s events reach only its owner key\'s stream), with If-None-Match: unchanged is a 304', { timeout: 60_000 }, async () => {
    const owner = await issueKey(app, 'inspect-cli@legalwork.test');
    const m = (await call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, owner.headers)).body.matter.id;
    // What the service answered the follower's asks, as they leave.
    const asked: Array<{ status: number; ifNoneMatch?: string }> = [];
    const watch = (req: IncomingMessage, res: ServerResponse) => {
      if (req.url === `/matters/${m}/inspection`) res.once('finish', () => asked.push({ status: res.statusCode, ifNoneMatch: req.headers['if-none-match'] }));
    };
    app.server.on('request', watch);
    const follower = startCli(['inspect', m, '--follow', '--poll', '200', '--url', url]);
    try {
      await until(() => follower.out.stderr.includes('asking every 200 ms'), () => `the follower to start (${follower.out.stderr})`);
      // Unchanged: each ask sends the first answer's ETag back and is answered 304, and nothing more is printed.
      await until(() => asked.filter((a) => a.status === 304).length >= 2, () => `two 304s (${JSON.stringify(asked)})`);
      expect(asked[0]).toEqual({ status: 200, ifNoneMatch: undefined });
      expect(asked.slice(1).every((a) => a.ifNoneMatch !== undefined)).toBe(true);
      expect(follower.out.stdout.match(/ as of seq /g)).toHaveLength(1);
      expect((await call(app, 'POST', `/matters/${m}/advance`, {}, owner.headers)).status).toBe(200);
      await until(() => follower.out.stdout.includes('state: open.prepare (prepare)'), 'the advance to be printed');
      expect(follower.out.stdout).toContain('path (1 new of 2 facts):');
      // After the change: a 200 with the new answer, then 304s against its ETag again.
      const changed = asked.findIndex((a) => a.status === 200 && a.ifNoneMatch !== undefined);
      expect(changed).toBeGreaterThan(0);
      await until(() => asked.slice(changed + 1).some((a) => a.status === 304 && a.ifNoneMatch !== asked[changed].ifNoneMatch), () => `a 304 on the new ETag (${JSON.stringify(asked)})`);
      await stop(follower.child, 'SIGINT');
      expect(follower.child.exitCode).toBe(0);
    } finally {
      app.server.off('request', watch);
      await stop(follower.child, 'SIGKILL');
    }
  });
});
