/**
 * `legalwork inspect --where` (issue 36, item 4), run as a real child process
 * against the real app on a real port: where a workspace's Matters gather as
 * a table (every state with its count and oldest, the transitions taken),
 * its ladders with their facets, a state's records paged, a firm's
 * Enrollments; `--json` as the service answers; the top level counts the
 * key's own; bad command lines are exit 2.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { call, issueKey, listeningApp, type TestApp } from './helpers/app.ts';
import { runCli } from './helpers/cli.ts';

let app: TestApp;
let url: string;
let workspaceId: string;
let W: string;
const ids: string[] = [];

const cli = (args: string[], env: Record<string, string | undefined> = {}) => runCli([...args, '--url', url], { env });

beforeAll(async () => {
  ({ app, url } = await listeningApp());
  workspaceId = (await call(app, 'POST', '/workspaces')).body.workspace.id;
  W = `/workspaces/${workspaceId}`;
  for (const advances of [0, 4, 4, 2]) {
    const m = (await call(app, 'POST', `${W}/matters`, { matterType: 'patent_provisional', asset: { title: `${FIXTURE.noticeEvePrefix} map` } })).body.matter;
    ids.push(m.id);
    for (let i = 0; i < advances; i++) expect((await call(app, 'POST', `${W}/matters/${m.id}/advance`, {})).status).toBe(200);
  }
});
afterAll(async () => app?.close());

describe('legalwork inspect --where', () => {
  it('prints where the workspace\'s Matters gather: each state with its count and oldest, and the transitions taken', async () => {
    const run = await cli(['inspect', '--where', '--workspace', workspaceId]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Matters of ${workspaceId} on matter@1: 4, as of `));
    expect(run.stdout).toContain('diagram: /docs/diagrams/matter.svg');
    // The oldest Matter waiting on a Signer is the first that escalated.
    expect(run.stdout).toMatch(new RegExp(`open\\.waiting_on_signer \\[awaiting-signer\\]\\s+2\\s+${ids[1]}\\s+\\S+ \\S+Z\\s+\\d+s`));
    expect(run.stdout).toMatch(new RegExp(`open\\.intake\\s+1\\s+${ids[0]}`));
    expect(run.stdout).toMatch(/open\.needs_client_direction \[awaiting-client\]\s+0\s*\n/);
    expect(run.stdout).toMatch(/^\s+3\s+open\.intake ADVANCE \[consentSatisfied\] -> open\.prepare$/m);
    expect(run.stdout).toMatch(/^\s+2\s+open\.review ESCALATE -> open\.waiting_on_signer$/m);
    const json = await cli(['inspect', '--where', '--workspace', workspaceId, '--json']);
    const served = (await call(app, 'GET', `${W}/inspection/matters`)).body;
    expect({ ...json.json, population: { ...json.json.population, asOf: 0, states: [] } }).toEqual({ ...served, population: { ...served.population, asOf: 0, states: [] } });
  });

  it('counts the ladders with their facets, and lists one state\'s records a page at a time', async () => {
    const ladders = await cli(['inspect', '--where', '--of', 'deadlines', '--workspace', workspaceId]);
    expect(ladders.code, ladders.stderr).toBe(0);
    expect(ladders.stdout).toMatch(/^Deadline Ladders of \S+ on deadline-ladder@1: 4/);
    expect(ladders.stdout).toMatch(/vacant 4\s+open with no monitoring owner named/);
    const first = await cli(['inspect', '--where', '--workspace', workspaceId, '--state', 'open.waiting_on_signer', '--limit', '1']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('in open.waiting_on_signer, oldest first:');
    expect(first.stdout).toContain(ids[1]);
    expect(first.stdout).not.toContain(ids[2]);
    const cursor = /more: --after (\d+)/.exec(first.stdout)![1];
    const second = await cli(['inspect', '--where', '--workspace', workspaceId, '--state', 'open.waiting_on_signer', '--limit', '1', '--after', cursor]);
    expect(second.stdout).toContain(ids[2]);
    expect(second.stdout).toContain(`${W}/matters/${ids[2]}/inspect`);
    const none = await cli(['inspect', '--where', '--workspace', workspaceId, '--state', 'fulfilled']);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('no Matter is in fulfilled');
  });

  it('counts a firm\'s Enrollments, and at the top level only the key\'s own Matters', async () => {
    const firm = (await call(app, 'POST', '/firms')).body.firm.id;
    expect((await call(app, 'POST', `/firms/${firm}/enrollments`, { memberId: 'mb_fixture_eligible', grants: ['roster'] })).status).toBe(201);
    const enrollments = await cli(['inspect', '--where', '--of', 'enrollments', '--firm', firm]);
    expect(enrollments.code, enrollments.stderr).toBe(0);
    expect(enrollments.stdout).toMatch(/live\.enrolled\s+1\s+en_/);

    const keyless = await cli(['inspect', '--where']);
    expect(keyless.code).toBe(0);
    expect(keyless.stdout).toContain('send Authorization: Bearer <key>');
    const key = await issueKey(app, 'where@legalwork.test');
    const opened = await call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, key.headers);
    expect(opened.status).toBe(201);
    const mine = await cli(['inspect', '--where'], { LEGALWORK_KEY: key.headers.authorization.slice('Bearer '.length) });
    expect(mine.code, mine.stderr).toBe(0);
    expect(mine.stdout).toMatch(/^Matters of the top level \(your key's\) on matter@1: 1,/);
    expect(mine.stdout).toContain(opened.body.matter.id);
  });

  it('refuses a command line that mixes one Matter and the grain, or pages without a state: exit 2', async () => {
    for (const args of [['inspect', ids[0], '--where'], ['inspect', '--state', 'open.intake'], ['inspect', '--where', '--limit', '5'], ['inspect', '--where', '--of', 'enrollments'], ['inspect', '--where', '--of', 'nothing'], ['inspect', '--where', '--follow'], ['inspect']]) {
      const run = await cli(args);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
    }
    const unknown = await cli(['inspect', '--where', '--workspace', workspaceId, '--state', 'nowhere']);
    expect(unknown.code).toBe(1);
    expect(unknown.json.code).toBe('INVALID_REQUEST');
  });
});
