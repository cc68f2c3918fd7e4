/**
 * The `legalwork` command, each sub-command run as a real child process
 * (`node bin/legalwork.js …`) against the real app listening on a real port:
 * its JSON on stdout, its words on stderr, and exit codes that tell a refusal
 * (1) from a bad command line (2), an unreachable service (3) and a success (0).
 * Help and usage errors, which never reach a service, run in-process.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, main } from '../src/cli/main.ts';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { listeningApp, tempDir, type TestApp } from './helpers/app.ts';
import { freePort, runCli } from './helpers/cli.ts';

let app: TestApp;
let url: string;
let key: string;
let workspaceId: string;

/** Runs the command against the test service. */
const cli = (args: string[], options: { key?: string; input?: string } = {}) => runCli([...args, '--url', url], { env: { LEGALWORK_KEY: options.key }, input: options.input });

beforeAll(async () => {
  ({ app, url } = await listeningApp());
  const issued = await runCli(['keys', 'create', '--email', 'cli@legalwork.test', '--building', 'the CLI tests', '--spend-ceiling', '5000', '--url', url]);
  expect(issued.code).toBe(0);
  key = issued.json.key;
  const ws = await cli(['workspaces', 'create']);
  expect(ws.code).toBe(0);
  workspaceId = ws.json.workspace.id;
});

afterAll(async () => {
  await app.close();
});

/** In-process run of `main`, for help and usage, which never reach a service. */
async function inProcess(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {}, { stdout: { write: (s: string) => ((stdout += s), true) } as never, stderr: { write: (s: string) => ((stderr += s), true) } as never });
  return { code, stdout, stderr };
}

describe('help and usage', () => {
  it('prints the overview naming every command', async () => {
    const { code, stdout } = await inProcess([]);
    expect(code).toBe(0);
    for (const c of COMMANDS) expect(stdout).toContain(c.path.join(' '));
    expect(stdout).toContain('verify --url <base>');
    expect((await inProcess(['--help'])).stdout).toBe(stdout);
  });

  it('gives --help on every command, exit 0, naming its options', async () => {
    for (const c of COMMANDS) {
      const { code, stdout } = await inProcess([...c.path, '--help']);
      expect(code, c.path.join(' ')).toBe(0);
      expect(stdout).toContain(`usage: legalwork ${c.path.join(' ')}`);
      expect(stdout).toContain('--help');
      for (const name of Object.keys(c.options ?? {})) expect(stdout).toContain(`--${name}`);
      if (c.grain) expect(stdout).toContain('--workspace <id>');
      if (c.remote) expect(stdout).toContain('--url <base>');
    }
    for (const group of ['matters', 'orders', 'workspaces', 'deadlines', 'events', 'keys', 'mcp', 'supply']) {
      const { code, stdout } = await inProcess([group, '--help']);
      expect(code).toBe(0);
      expect(stdout).toContain(`usage: legalwork ${group} <`);
    }
  });

  it.each([
    [['frobnicate'], /unknown command "frobnicate"/],
    [['matters'], /which one\?/],
    [['matters', 'rename'], /unknown command "rename"/],
    [['matters', 'get'], /missing <matterId>/],
    [['matters', 'get', 'a', 'b'], /unexpected argument "b"/],
    [['matters', 'list', '--colour'], /Unknown option '--colour'/],
    [['matters', 'list', '--limit', 'ten'], /--limit must be an integer/],
    [['matters', 'list', '--limit', '0'], /--limit must be at least 1/],
    [['matters', 'list', '--url', 'ftp://example.com'], /must be http/],
    [['matters', 'list', '--url', 'not a url'], /is not a URL/],
    [['matters', 'create', '--body', '{nope'], /--body is not valid JSON/],
    [['matters', 'create', '--body', '[1]'], /--body must be a JSON object/],
    [['matters', 'create', '--body', '@/nonexistent/body.json'], /cannot read/],
    [['matters', 'advance', 'mt_1', '--merits', '7'], /--merits must be a JSON object/],
    [['orders', 'file-provisional', '--title', 'T', '--inventor', 'I'], /--list-fee is required/],
    [['orders', 'file-provisional', '--inventor', 'I', '--list-fee', '199'], /--title is required/],
    [['orders', 'file-provisional', '--title', 'T', '--inventor', 'I', '--list-fee', 'cheap'], /--list-fee must be a number/],
    [['deadlines', 'tick', 'as_1'], /--days is required/],
    [['deadlines', 'ack', 'as_1'], /--actor is required/],
    [['keys', 'create'], /--email is required/],
    [['events', 'tail', '--after', '-1'], /--after/],
    [['events', 'tail', '--workspace', ''], /--workspace needs a workspace id/],
    [['events', 'tail', '--follow', '--limit', '5'], /--limit pages the tail without --follow/],
    [['events', 'tail', '--idle-timeout', '500'], /only with --follow/],
  ])('%j is a usage error: exit 2, worded on stderr, nothing on stdout', async (argv, words) => {
    const { code, stdout, stderr } = await inProcess(argv);
    expect(code).toBe(2);
    expect(stderr).toMatch(words);
    expect(stdout).toBe('');
  });
});

describe('against a running service', { timeout: 90_000 }, () => {
  it('keys create issues a key shown once; a malformed email is refused (exit 1)', async () => {
    expect(key).toMatch(/^lwk_/);
    const bad = await cli(['keys', 'create', '--email', 'not-an-email']);
    expect(bad.code).toBe(1);
    expect(bad.json.error).toBeTypeOf('string');
    expect(bad.stderr).toMatch(/refused \(422/);
  });

  it('workspaces create and get; an unknown workspace is refused with the typed EMPTY naming the fix', async () => {
    const [got, gone] = await Promise.all([cli(['workspaces', 'get', workspaceId]), cli(['workspaces', 'get', 'ws_gone'])]);
    expect(got.code).toBe(0);
    expect(got.json.workspace.id).toBe(workspaceId);
    expect(gone.code).toBe(1);
    expect(gone.json).toEqual(expect.objectContaining({ type: 'EMPTY', fix: 'POST /workspaces' }));
  });

  it('matters create, list, get and advance inside a workspace, to the reserved act', async () => {
    const created = await cli(['matters', 'create', '--workspace', workspaceId, '--type', 'demand_letter', '--client-name', 'Ada', '--title', 'A letter', '--adverse-party', 'Acme', '--adverse-party', 'Initech', '--client-state', 'CA']);
    expect(created.code).toBe(0);
    expect(created.stderr).toBe('');
    const matter = created.json.matter;
    expect(matter.status).toBe('intake');
    expect(created.json.asset.title).toBe('A letter');

    const [listed, narrowed, got] = await Promise.all([
      cli(['matters', 'list', '--workspace', workspaceId]),
      cli(['matters', 'list', '--workspace', workspaceId, '--tag', 'patent_utility']),
      cli(['matters', 'get', matter.id, '--workspace', workspaceId]),
    ]);
    expect(listed.code).toBe(0);
    expect(listed.json.results.map((m: { id: string }) => m.id)).toContain(matter.id);
    expect(narrowed.json.type).toBe('EMPTY');
    expect(got.json.matter.id).toBe(matter.id);
    expect(got.json.journal.length).toBeGreaterThan(0);

    const stages = [];
    for (let i = 0; i < 3; i++) {
      const step = await cli(['matters', 'advance', matter.id, '--workspace', workspaceId, ...(i === 0 ? ['--note', 'facts gathered'] : [])]);
      expect(step.code).toBe(0);
      stages.push(step.json.committed.advanceTo);
    }
    expect(stages).toEqual(['prepare', 'examine', 'review']);
    const reserved = await cli(['matters', 'advance', matter.id, '--workspace', workspaceId]);
    expect(reserved.json.matter.status).toBe('waiting_on_signer');
    expect(reserved.json.escalated.reservedAct).toBe('sign');
    const refused = await cli(['matters', 'advance', matter.id, '--workspace', workspaceId]);
    expect(refused.code).toBe(1);
    expect(refused.json.error).toContain(matter.id);
    expect(refused.stderr).toMatch(/^legalwork: refused \(409/);
  });

  it('matters create reads --body from a file and from stdin; flags override it', async () => {
    const dir = tempDir();
    const file = join(dir, 'body.json');
    writeFileSync(file, JSON.stringify({ matterType: 'contract_review', client: { name: 'From a file' } }));
    const [fromFile, fromStdin] = await Promise.all([
      cli(['matters', 'create', '--workspace', workspaceId, '--body', `@${file}`, '--type', 'entity_formation']),
      cli(['matters', 'create', '--workspace', workspaceId, '--body', '-'], { input: JSON.stringify({ matterType: 'trademark_office_action' }) }),
    ]);
    expect(fromFile.code).toBe(0);
    expect(fromFile.json.matter.matterType).toBe('entity_formation');
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.json.matter.matterType).toBe('trademark_office_action');
  });

  it('the service refuses what it must: an unratified type (400), unknown fields (422), an unknown Matter (404)', async () => {
    const [unratified, unknownField, missing] = await Promise.all([
      cli(['matters', 'create', '--workspace', workspaceId, '--type', 'divorce']),
      cli(['matters', 'create', '--workspace', workspaceId, '--body', '{"matterType":"demand_letter","colour":"red"}']),
      cli(['matters', 'get', 'mt_missing', '--workspace', workspaceId]),
    ]);
    expect(unratified.code).toBe(1);
    expect(unratified.json.error).toMatch(/not ratified/);
    expect(unknownField.code).toBe(1);
    expect(unknownField.stderr).toMatch(/refused \(422/);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/refused \(404/);
  });

  it('top-level writes take the key from LEGALWORK_KEY; without it they are refused naming POST /keys; the list is the key\'s own', async () => {
    const [keyless, keyed] = await Promise.all([
      cli(['matters', 'create', '--type', 'demand_letter']),
      cli(['matters', 'create', '--type', 'demand_letter'], { key }),
    ]);
    expect(keyless.code).toBe(1);
    expect(keyless.json.error).toContain('POST /keys');
    expect(keyed.code).toBe(0);
    const listed = await cli(['matters', 'list'], { key });
    expect(listed.json.results.map((m: { id: string }) => m.id)).toContain(keyed.json.matter.id);
    // Without the key the top level lists nothing, and says how to see one's own.
    const anonymous = await cli(['matters', 'list']);
    expect(anonymous.json).toMatchObject({ type: 'EMPTY', message: expect.stringContaining('Authorization: Bearer') });
  });

  it("acts as the key it is given: another key neither lists, tails nor advances this key's Matter", async () => {
    const mine = await cli(['matters', 'create', '--type', 'demand_letter'], { key });
    expect(mine.code).toBe(0);
    const matterId: string = mine.json.matter.id;
    const issued = await cli(['keys', 'create', '--email', 'cli-other@legalwork.test']);
    expect(issued.code).toBe(0);
    const other: string = issued.json.key;
    const [ownTail, otherList, otherTail, keylessTail, otherAdvance] = await Promise.all([
      cli(['events', 'tail', '--after', '0', '--limit', '500'], { key }),
      cli(['matters', 'list'], { key: other }),
      cli(['events', 'tail', '--after', '0'], { key: other }),
      cli(['events', 'tail', '--after', '0']),
      cli(['matters', 'advance', matterId], { key: other }),
    ]);
    expect(ownTail.code).toBe(0);
    expect(ownTail.stdout).toContain(matterId);
    expect(otherList.json).toMatchObject({ type: 'EMPTY', results: [] });
    expect(otherTail.json.type).toBe('EMPTY');
    expect(otherTail.stdout).not.toContain(matterId);
    expect(keylessTail.json).toMatchObject({ type: 'EMPTY', message: expect.stringContaining('POST /keys') });
    // A write with another key answers what an unknown id answers.
    expect(otherAdvance.code).toBe(1);
    expect(otherAdvance.json.code).toBe('MATTER_NOT_FOUND');
  });

  it('orders file-provisional stops at waiting_on_signer, on the top level with a key and keyless in a workspace', async () => {
    const [top, sandbox, keyless] = await Promise.all([
      cli(['orders', 'file-provisional', '--title', 'A kettle', '--inventor', 'Grace', '--list-fee', '199'], { key }),
      cli(['orders', 'file-provisional', '--title', 'A kettle', '--inventor', 'Grace', '--list-fee', '199', '--workspace', workspaceId, '--offer', 'kettles']),
      cli(['orders', 'file-provisional', '--title', 'A kettle', '--inventor', 'Grace', '--list-fee', '199']),
    ]);
    expect(top.code).toBe(0);
    expect(top.json.status).toBe('waiting_on_signer');
    expect(top.json.matter.mint).toBe('legalwork-cli');
    expect(sandbox.code).toBe(0);
    expect(sandbox.json.matter.offer).toBe('kettles');
    expect(keyless.code).toBe(1);
  });

  it('deadlines get, ack and tick an ack-due ladder; refusals exit 1', async () => {
    const created = await cli(['matters', 'create', '--workspace', workspaceId, '--type', 'patent_provisional', '--title', `${FIXTURE.ackDuePrefix} kettle`]);
    const assetId = created.json.matter.assetId;
    const ladder = await cli(['deadlines', 'get', assetId, '--workspace', workspaceId]);
    expect(ladder.code).toBe(0);
    expect(ladder.json.ackRequiredToday).toBe(true);
    const acked = await cli(['deadlines', 'ack', assetId, '--actor', 'Ada Lovelace', '--workspace', workspaceId]);
    expect(acked.code).toBe(0);
    expect(acked.json.acked).toBe(true);
    const again = await cli(['deadlines', 'ack', assetId, '--actor', 'Ada Lovelace', '--workspace', workspaceId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/refused \(409/);
    const ticked = await cli(['deadlines', 'tick', assetId, '--days', '1', '--workspace', workspaceId]);
    expect(ticked.code).toBe(0);
    expect(ticked.json.daysUntilDeadline).toBe(ladder.json.daysUntilDeadline - 1);
    expect(ticked.json.ackRequiredToday).toBe(true);
    const [unknown, blankActor] = await Promise.all([
      cli(['deadlines', 'get', 'as_unknown', '--workspace', workspaceId]),
      cli(['deadlines', 'ack', assetId, '--actor', ' ', '--workspace', workspaceId]),
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/refused \(404/);
    expect(blankActor.code).toBe(1);
    expect(blankActor.stderr).toMatch(/refused \(422/);
  });

  it('events tail reads a page of the tail; a feed off the enum is refused', async () => {
    const [page, reminders, bogus] = await Promise.all([
      cli(['events', 'tail', '--workspace', workspaceId, '--after', '0', '--limit', '2']),
      cli(['events', 'tail', '--workspace', workspaceId, '--feed', 'reminders']),
      cli(['events', 'tail', '--workspace', workspaceId, '--feed', 'everything']),
    ]);
    expect(page.code).toBe(0);
    expect(page.json.appendOnly).toBe(true);
    expect(page.json.results.map((e: { seq: number }) => e.seq)).toEqual([1, 2]);
    expect(page.json.latestSeq).toBeGreaterThan(2);
    expect(['OK', 'EMPTY']).toContain(reminders.json.type);
    expect(bogus.code).toBe(1);
    expect(bogus.stderr).toMatch(/refused \(422/);
  });

  it('--idempotency-key makes a write safe to run again: the same key answers the first answer; on another body it is refused (exit 1)', async () => {
    const argv = ['matters', 'create', '--workspace', workspaceId, '--type', 'patent_provisional', '--title', 'Once', '--idempotency-key', 'cli-create-once'];
    const first = await cli(argv);
    expect(first.code).toBe(0);
    const again = await cli(argv);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    const other = await cli([...argv.slice(0, -3), 'Twice', '--idempotency-key', 'cli-create-once']);
    expect(other.code).toBe(1);
    expect(other.json.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const bad = await cli([...argv.slice(0, -1), 'tab\there']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--idempotency-key holds a character that is not printable ASCII/);
  });

  it('--pretty indents the same JSON for people', async () => {
    const [plain, pretty] = await Promise.all([cli(['workspaces', 'get', workspaceId]), cli(['workspaces', 'get', workspaceId, '--pretty'])]);
    expect(plain.stdout.trim().split('\n')).toHaveLength(1);
    expect(pretty.stdout).toContain('\n  "workspace": {');
    expect({ ...pretty.json, workspace: { ...pretty.json.workspace, expiresInSeconds: 0 } }).toEqual({ ...plain.json, workspace: { ...plain.json.workspace, expiresInSeconds: 0 } });
  });

  it('verify --url runs the published contract suite against the service', async () => {
    const [json, lines] = await Promise.all([runCli(['verify', '--url', url, '--json']), runCli(['verify', '--url', url])]);
    expect(json.code).toBe(0);
    expect(json.json.failed).toBe(0);
    expect(json.json.passed).toBeGreaterThan(0);
    expect(lines.code).toBe(0);
    expect(lines.stdout).toMatch(/(\d+) of \1 requirements hold/);
    const help = await inProcess(['verify', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('legalwork verify');
  });

  it('takes the address from LEGALWORK_URL when --url is absent', async () => {
    const run = await runCli(['workspaces', 'get', workspaceId], { env: { LEGALWORK_URL: url } });
    expect(run.code).toBe(0);
    expect(run.json.workspace.id).toBe(workspaceId);
  });
});

describe('a service that cannot be reached', () => {
  it('is exit 3, with the reason as JSON on stdout and in words on stderr', async () => {
    const port = await freePort();
    const [list, follow, verify] = await Promise.all([
      runCli(['matters', 'list', '--url', `http://127.0.0.1:${port}`]),
      runCli(['events', 'tail', '--follow', '--url', `http://127.0.0.1:${port}`]),
      runCli(['verify', '--url', `http://127.0.0.1:${port}`]),
    ]);
    expect(verify.code).toBe(3);
    for (const run of [list, follow]) {
      expect(run.code).toBe(3);
      expect(run.json.code).toBe('SERVICE_UNREACHABLE');
      expect(run.json.error).toMatch(/ECONNREFUSED/);
      expect(run.json.fix).toMatch(/legalwork serve.*LEGALWORK_URL/);
      expect(run.stderr).toMatch(/cannot reach the legalwork service/);
    }
  });
});
