/**
 * The MCP server through the official SDK client over the SDK's in-memory
 * transport, against the real app listening on a real port: every tool, its
 * schema and annotations, its happy path and its refusals.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { SPEC_TOOLS } from '../src/mcp/server.ts';
import { freePort } from './helpers/cli.ts';
import { listeningApp, type TestApp } from './helpers/app.ts';
import { mcpClient } from './helpers/mcp-client.ts';

let app: TestApp;
let url: string;
let key: string;
const opened: Client[] = [];

async function connect(options: { key?: string; baseUrl?: string } = {}) {
  const client = await mcpClient(options.baseUrl ?? url, options.key);
  opened.push(client);
  return client;
}

/** Calls a tool and checks the invariant of every result: structuredContent, and the same JSON as text. */
async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.content).toHaveLength(1);
  const [text] = result.content as { type: string; text: string }[];
  expect(text.type).toBe('text');
  if (result.structuredContent !== undefined) expect(JSON.parse(text.text)).toEqual(result.structuredContent);
  return { isError: result.isError === true, body: result.structuredContent as any, text: text.text };
}

/** A refusal of the service: an error result carrying the status and the worded reason. */
function expectRefusal(result: { isError: boolean; body: any }, status: number, code?: string) {
  expect(result.isError).toBe(true);
  expect(result.body.httpStatus).toBe(status);
  expect(typeof result.body.error).toBe('string');
  expect(result.body.error.length).toBeGreaterThan(10);
  if (code) expect(result.body.code).toBe(code);
}

/** An argument the input schema rejects: an error result, never a protocol error, and nothing sent. */
function expectInvalidArguments(result: { isError: boolean; body: any; text: string }, words: RegExp) {
  expect(result.isError).toBe(true);
  expect(result.text).toMatch(/Input validation error/);
  expect(result.text).toMatch(words);
}

/** A fresh API key from the service under test (or the one at `base`). */
async function issueKey(email: string, base = url) {
  const issued = await fetch(`${base}/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
  expect(issued.status).toBe(201);
  return ((await issued.json()) as { key: string }).key;
}

beforeAll(async () => {
  ({ app, url } = await listeningApp());
  key = await issueKey('mcp@legalwork.test');
});

afterAll(async () => {
  for (const client of opened) await client.close();
  await app.close();
});

describe('the tool list', () => {
  it("holds the spec's six tools exactly, with their input schemas and annotations, plus the sandbox tools", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of SPEC_TOOLS) expect(byName.has(name), name).toBe(true);
    const extra = tools.map((t) => t.name).filter((n) => !(SPEC_TOOLS as readonly string[]).includes(n));
    // Beyond the six: inspect_matter (issue 35), where_matters_gather (issue 36), the server's own key (issue 38), and the sandbox rehearsal tools.
    expect(extra.filter((n) => !n.startsWith('sandbox_'))).toEqual(['inspect_matter', 'where_matters_gather', 'key_self', 'roll_key', 'revoke_key']);
    expect(extra.sort()).toEqual(['inspect_matter', 'key_self', 'revoke_key', 'roll_key', 'sandbox_advance_matter', 'sandbox_create_matter', 'sandbox_get_matter', 'sandbox_gig_result', 'sandbox_open_workspace', 'sandbox_read_events', 'sandbox_tick_ladder', 'where_matters_gather']);

    const schema = (name: string) => byName.get(name)!.inputSchema as { properties?: Record<string, any>; required?: string[]; additionalProperties?: boolean };
    expect(Object.keys(schema('healthz').properties ?? {})).toEqual([]);
    expect(Object.keys(schema('list_matters').properties ?? {})).toEqual([]);
    expect(schema('get').required).toEqual(['path']);
    expect(schema('get').properties!.path.type).toBe('string');
    expect(schema('get_matter').required).toEqual(['matterId']);
    expect(schema('advance_matter').required).toEqual(['matterId']);
    expect(schema('file_provisional').required!.sort()).toEqual(['inventor', 'listFeeUsd', 'title']);
    expect(schema('file_provisional').properties!.listFeeUsd.type).toBe('number');
    expect(schema('file_provisional').properties!.title.type).toBe('string');
    for (const name of SPEC_TOOLS) expect(schema(name).additionalProperties, name).toBe(false);

    for (const name of ['healthz', 'get', 'list_matters', 'get_matter', 'inspect_matter', 'where_matters_gather', 'sandbox_get_matter', 'sandbox_read_events']) {
      expect(byName.get(name)!.annotations?.readOnlyHint, name).toBe(true);
    }
    for (const name of ['advance_matter', 'file_provisional', 'sandbox_open_workspace', 'sandbox_create_matter', 'sandbox_advance_matter', 'sandbox_gig_result', 'sandbox_tick_ladder']) {
      expect(byName.get(name)!.annotations?.readOnlyHint, name).toBe(false);
      expect(byName.get(name)!.annotations?.destructiveHint, name).toBe(false);
    }
  });

  it('rejects an unknown argument on every spec tool through its schema', async () => {
    const client = await connect();
    for (const name of SPEC_TOOLS) {
      expectInvalidArguments(await call(client, name, { surplus: 1 }), /surplus|Unrecognized/i);
    }
  });
});

describe('healthz', () => {
  it('answers the typed liveness', async () => {
    const result = await call(await connect(), 'healthz');
    expect(result.isError).toBe(false);
    expect(result.body.type).toBe('OK');
  });
});

describe('instructions', () => {
  it('say the tools act as LEGALWORK_KEY, and without one how a key is issued', async () => {
    const keyed = (await connect({ key })).getInstructions()!;
    expect(keyed).toContain('LEGALWORK_KEY');
    expect(keyed).not.toContain('No key is set');
    const keyless = (await connect()).getInstructions()!;
    expect(keyless).toContain('No key is set');
    expect(keyless).toContain('POST /keys');
    expect(keyless).toContain('legalwork keys create');
  });
});

describe('get', () => {
  it('reads a keyless path, with its query', async () => {
    const client = await connect();
    const ws = await call(client, 'sandbox_open_workspace');
    const fixtures = await call(client, 'get', { path: `/workspaces/${ws.body.workspace.id}/fixtures` });
    expect(fixtures.isError).toBe(false);
    expect(fixtures.body.fixtures.map((f: { name: string }) => f.name)).toContain('eligible-signer');
    const page = await call(client, 'get', { path: `/workspaces/${ws.body.workspace.id}/events?after=0&limit=1` });
    expect(page.body.type).toBe('OK');
    expect(page.body.results).toHaveLength(1);
  });

  it("acts as the configured key: a top-level list or tail through get shows that key's records only, and without a key names the fix", async () => {
    const keyed = await connect({ key });
    const order = await call(keyed, 'file_provisional', { title: 'A get-listed widget', inventor: 'Ada', listFeeUsd: 199 });
    expect(order.isError).toBe(false);
    const listed = await call(keyed, 'get', { path: '/matters?limit=200' });
    expect(listed.body.type).toBe('OK');
    expect(listed.body.results.map((m: { id: string }) => m.id)).toContain(order.body.matterId);
    const tail = await call(keyed, 'get', { path: '/events?after=0&limit=500' });
    expect(tail.body.type).toBe('OK');
    expect(tail.body.results.some((e: { matterId?: string; stream?: string }) => JSON.stringify(e).includes(order.body.matterId))).toBe(true);
    // Another key sees none of it; no key sees nothing, and is told how to get one.
    const other = await connect({ key: await issueKey('get-other@legalwork.test') });
    for (const path of ['/matters', '/assets', '/events?after=0']) expect((await call(other, 'get', { path })).body.type, path).toBe('EMPTY');
    const keyless = await connect();
    for (const path of ['/matters', '/assets', '/events?after=0']) {
      expect((await call(keyless, 'get', { path })).body, path).toMatchObject({ type: 'EMPTY', message: expect.stringContaining('POST /keys') });
    }
    // A read by id stays keyless.
    expect((await call(keyless, 'get', { path: `/matters/${order.body.matterId}` })).isError).toBe(false);
  });

  it('sends a stale key too, and the refusal names the fix', async () => {
    const client = await connect({ key: 'lwk_' + 'x'.repeat(43) });
    for (const tool of [['get', { path: '/matters' }], ['list_matters', {}]] as const) {
      const refused = await call(client, tool[0], tool[1]);
      expectRefusal(refused, 401, 'KEY_UNKNOWN');
      expect(refused.body.error, tool[0]).toContain('POST /keys');
    }
  });

  it('answers a service refusal as an error result', async () => {
    expectRefusal(await call(await connect(), 'get', { path: '/matters/mt_nowhere' }), 404);
  });

  it.each([
    ['http://example.com/healthz', /start with/],
    ['https://127.0.0.1/healthz', /start with/],
    ['//example.com/healthz', /\/\//],
    ['healthz', /start with/],
    ['/../healthz', /\.\./],
    ['/matters/../keys', /\.\./],
    ['/matters/%2e%2e/keys', /\.\./],
    ['/matters/%2E%2E/keys', /\.\./],
    ['/./healthz', /"\."/],
    ['/a\\..\\b', /backslash/],
    ['/healthz#frag', /#|fragment/],
    ['/health z', /whitespace/],
    ['/%zz', /percent/],
    ['', /start with/],
  ])('refuses %j before any request', async (path, words) => {
    expectInvalidArguments(await call(await connect(), 'get', { path }), words);
  });
});

describe('the demand loop on the top level', () => {
  it("list_matters answers EMPTY, then OK once the key has a Matter; another key and no key see none of it", async () => {
    const fresh = await listeningApp();
    try {
      const keyed = await connect({ baseUrl: fresh.url, key: await issueKey('a@legalwork.test', fresh.url) });
      const before = await call(keyed, 'list_matters');
      expect(before.isError).toBe(false);
      expect(before.body.type).toBe('EMPTY');
      expect(before.body.results).toEqual([]);
      const res = await fetch(`${fresh.url}/workspaces`, { method: 'POST' });
      expect(res.status).toBe(201);
      const order = await call(keyed, 'file_provisional', { title: 'A widget', inventor: 'Ada', listFeeUsd: 199 });
      expect(order.isError).toBe(false);
      const after = await call(keyed, 'list_matters');
      expect(after.body.type).toBe('OK');
      expect(after.body.results.map((m: { id: string }) => m.id)).toEqual([order.body.matterId]);
      // The attack: key A's Matter is listed neither to key B nor to no key, and B cannot write on it.
      const keyless = await call(await connect({ baseUrl: fresh.url }), 'list_matters');
      expect(keyless.isError).toBe(false);
      expect(keyless.body).toMatchObject({ type: 'EMPTY', results: [] });
      // Without a key the answer tells the agent how to get one.
      expect(keyless.body.message).toContain('Authorization: Bearer');
      expect(keyless.body.message).toContain('POST /keys');
      const other = await connect({ baseUrl: fresh.url, key: await issueKey('b@legalwork.test', fresh.url) });
      expect((await call(other, 'list_matters')).body).toMatchObject({ type: 'EMPTY', results: [] });
      expectRefusal(await call(other, 'advance_matter', { matterId: order.body.matterId }), 404, 'MATTER_NOT_FOUND');
    } finally {
      await fresh.app.close();
    }
  });

  it('file_provisional orders a filing that waits on a Signer: the reserved act never resolves in-band', async () => {
    const client = await connect({ key });
    const order = await call(client, 'file_provisional', { title: 'A better mousetrap', inventor: 'Grace', listFeeUsd: 199 });
    expect(order.isError).toBe(false);
    expect(order.body.status).toBe('waiting_on_signer');
    expect(order.body.matter.pendingGigId).toMatch(/^gig_/);
    const read = await call(client, 'get_matter', { matterId: order.body.matterId });
    expect(read.isError).toBe(false);
    expect(read.body.matter.status).toBe('waiting_on_signer');
    expect(read.body.journal.length).toBeGreaterThan(1);
    // Advancing while the Signer holds the act is refused, worded.
    const again = await call(client, 'advance_matter', { matterId: order.body.matterId });
    expectRefusal(again, 409);
    expect(again.body.error).toContain(order.body.matterId);
  });

  it('file_provisional without a key is refused, naming POST /keys', async () => {
    const refused = await call(await connect(), 'file_provisional', { title: 'Keyless', inventor: 'Nobody', listFeeUsd: 199 });
    expectRefusal(refused, 401);
    expect(refused.body.error).toContain('POST /keys');
  });

  it('file_provisional rejects malformed arguments through its schema, writing nothing', async () => {
    const client = await connect({ key });
    const before = await call(client, 'list_matters');
    expectInvalidArguments(await call(client, 'file_provisional', { title: 'T', inventor: 'I', listFeeUsd: '199' }), /listFeeUsd|number/);
    expectInvalidArguments(await call(client, 'file_provisional', { title: 'T', listFeeUsd: 199 }), /inventor/);
    expectInvalidArguments(await call(client, 'file_provisional', { title: 'T', inventor: 'I', listFeeUsd: -1 }), /listFeeUsd|>=|too small/i);
    const after = await call(client, 'list_matters');
    expect(after.body.results?.length ?? 0).toBe(before.body.results?.length ?? 0);
  });

  it('advance_matter commits open work, then escalates the reserved act to waiting_on_signer', async () => {
    const client = await connect({ key });
    const created = await fetch(`${url}/matters`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ matterType: 'demand_letter' }) });
    expect(created.status).toBe(201);
    const matterId = ((await created.json()) as { matter: { id: string } }).matter.id;
    const stages: string[] = [];
    for (let i = 0; i < 3; i++) {
      const step = await call(client, 'advance_matter', { matterId });
      expect(step.isError).toBe(false);
      expect(step.body.committed.advanceTo).toBe(step.body.matter.stage);
      stages.push(step.body.matter.stage);
    }
    expect(stages).toEqual(['prepare', 'examine', 'review']);
    const reserved = await call(client, 'advance_matter', { matterId });
    expect(reserved.isError).toBe(false);
    expect(reserved.body.matter.status).toBe('waiting_on_signer');
    expect(reserved.body.escalated).toEqual(expect.objectContaining({ reservedAct: 'sign', gigId: reserved.body.matter.pendingGigId }));
  });

  it('get_matter and advance_matter refuse an unknown Matter with the worded 404', async () => {
    const client = await connect({ key });
    expectRefusal(await call(client, 'get_matter', { matterId: 'mt_unknown' }), 404, 'MATTER_NOT_FOUND');
    const advance = await call(client, 'advance_matter', { matterId: 'mt_unknown' });
    expectRefusal(advance, 404);
    expect(advance.body.error).toContain('mt_unknown');
    expectInvalidArguments(await call(client, 'get_matter', { matterId: '../keys' }), /id/);
    expectInvalidArguments(await call(client, 'get_matter', {}), /matterId/);
  });

  it('a service that cannot be reached is an error result, not a protocol error', async () => {
    const client = await connect({ baseUrl: `http://127.0.0.1:${await freePort()}` });
    for (const [name, args] of [['healthz', {}], ['list_matters', {}], ['get', { path: '/healthz' }], ['get_matter', { matterId: 'mt_x' }]] as const) {
      const result = await call(client, name, args);
      expect(result.isError, name).toBe(true);
      expect(result.body.code).toBe('SERVICE_UNREACHABLE');
      expect(result.body.error).toMatch(/cannot reach/);
      expect(result.body.fix).toMatch(/LEGALWORK_URL/);
    }
  });
});

describe('inspect_matter', () => {
  it('answers what a Matter may do now and why not the rest, at the top level (keyless, by id) and in a workspace; as of an earlier fact; refusals as error results', async () => {
    const opened = await fetch(`${url}/matters`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ matterType: 'patent_provisional' }) });
    const matter = ((await opened.json()) as any).matter;
    const client = await connect();
    const now = await call(client, 'inspect_matter', { matterId: matter.id });
    expect(now.isError).toBe(false);
    const inspection = now.body.inspection;
    expect(inspection.state.status).toBe('intake');
    expect(inspection.open.find((d: any) => d.command === 'advance')).toMatchObject({ method: 'POST', href: `/matters/${matter.id}/advance`, sends: ['ADVANCE'] });
    expect(inspection.refused.find((d: any) => d.command === 'gig-result.attested')).toMatchObject({ status: 409, code: 'NO_PENDING_GIG' });
    expect((await call(client, 'inspect_matter', { matterId: matter.id, at: inspection.path[0].seq })).body.inspection.at.seq).toBe(inspection.path[0].seq);
    expectRefusal(await call(client, 'inspect_matter', { matterId: matter.id, at: 0 }), 422, 'INSPECTION_BEFORE_OPENING');

    const ws = (await call(client, 'sandbox_open_workspace')).body.workspace.id;
    const sandboxed = (await call(client, 'sandbox_create_matter', { workspaceId: ws, matterType: 'patent_provisional' })).body.matter;
    const inWorkspace = await call(client, 'inspect_matter', { matterId: sandboxed.id, workspaceId: ws });
    expect(inWorkspace.isError).toBe(false);
    expect(inWorkspace.body.inspection.subject.links.self).toBe(`/workspaces/${ws}/matters/${sandboxed.id}/inspection`);
    expectRefusal(await call(client, 'inspect_matter', { matterId: sandboxed.id }), 404, 'MATTER_NOT_FOUND');
    expectInvalidArguments(await call(client, 'inspect_matter', { matterId: matter.id, at: -1 }), /at/);
  });
});

describe('where_matters_gather', () => {
  it('answers where a grain\'s Matters gather (the key\'s own at the top level, a workspace\'s), a state\'s records, ladders and a firm\'s Enrollments; refusals as error results', async () => {
    const mine = await issueKey('where@legalwork.test');
    const opened = await fetch(`${url}/matters`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${mine}` }, body: JSON.stringify({ matterType: 'patent_provisional' }) });
    const matter = ((await opened.json()) as any).matter;
    const keyed = await call(await connect({ key: mine }), 'where_matters_gather');
    expect(keyed.isError).toBe(false);
    expect(keyed.body.population.total).toBe(1);
    expect(keyed.body.population.states.find((s: any) => s.path === 'open.intake')).toMatchObject({ count: 1, oldest: { id: matter.id, links: { inspection: `/matters/${matter.id}/inspection` } } });
    expect(keyed.body.population.transitions.length).toBeGreaterThan(5);
    const client = await connect();
    const keyless = await call(client, 'where_matters_gather');
    expect(keyless.body).toMatchObject({ type: 'EMPTY', machine: { id: 'matter' } });
    expect(keyless.body.message).toMatch(/Authorization: Bearer/);

    const ws = (await call(client, 'sandbox_open_workspace')).body.workspace.id;
    const sandboxed = (await call(client, 'sandbox_create_matter', { workspaceId: ws, matterType: 'patent_provisional' })).body.matter;
    const inIntake = await call(client, 'where_matters_gather', { workspaceId: ws, state: 'open.intake', limit: 1 });
    expect(inIntake.body.results.map((m: any) => m.id)).toEqual([sandboxed.id]);
    const ladders = await call(client, 'where_matters_gather', { workspaceId: ws, of: 'deadlines' });
    expect(ladders.body.population.facets.find((f: any) => f.name === 'vacant').count).toBe(1);
    const firm = ((await (await fetch(`${url}/firms`, { method: 'POST' })).json()) as any).firm.id;
    const enrollments = await call(client, 'where_matters_gather', { of: 'enrollments', firmId: firm });
    expect(enrollments.body).toMatchObject({ type: 'EMPTY', machine: { id: 'enrollment' } });
    expectRefusal(await call(client, 'where_matters_gather', { workspaceId: ws, state: 'open.nowhere' }), 422, 'INVALID_REQUEST');
    expectRefusal(await call(client, 'where_matters_gather', { workspaceId: 'ws_0000000000000000000000000' }), 404, 'WORKSPACE_NOT_FOUND');
    expectInvalidArguments(await call(client, 'where_matters_gather', { of: 'enrollments' }), /firmId/);
    expectInvalidArguments(await call(client, 'where_matters_gather', { state: 'open intake' }), /state/);
  });
});

describe('sandbox rehearsal', () => {
  async function matterIn(client: Client, extra: Record<string, unknown> = {}) {
    const ws = await call(client, 'sandbox_open_workspace');
    expect(ws.isError).toBe(false);
    const workspaceId = ws.body.workspace.id as string;
    const created = await call(client, 'sandbox_create_matter', { workspaceId, matterType: 'patent_provisional', ...extra });
    expect(created.isError).toBe(false);
    expect(created.body.matter.status).toBe('intake');
    return { workspaceId, matterId: created.body.matter.id as string, assetId: created.body.matter.assetId as string };
  }

  async function toReserved(client: Client, workspaceId: string, matterId: string) {
    let step;
    do step = await call(client, 'sandbox_advance_matter', { workspaceId, matterId });
    while (!step.isError && step.body.matter.status !== 'waiting_on_signer');
    expect(step.isError).toBe(false);
    return step.body;
  }

  it('walks a Matter to fulfilled with the eligible fixture Signer, refusing the lapsed ones', async () => {
    const client = await connect();
    const { workspaceId, matterId } = await matterIn(client);
    expect((await toReserved(client, workspaceId, matterId)).escalated.reservedAct).toBe('sign');

    const lapsed = await call(client, 'sandbox_gig_result', { workspaceId, matterId, outcome: 'attested', signer: FIXTURE.lapsedSigner });
    expectRefusal(lapsed, 422);
    expect(lapsed.body.predicate).toBe('standing');
    const coverage = await call(client, 'sandbox_gig_result', { workspaceId, matterId, outcome: 'attested', signer: FIXTURE.lapsedCoverageSigner });
    expectRefusal(coverage, 422);
    expect(coverage.body.cure).toMatch(/coverage/);
    expect((await call(client, 'sandbox_get_matter', { workspaceId, matterId })).body.matter.status).toBe('waiting_on_signer');

    const signed = await call(client, 'sandbox_gig_result', { workspaceId, matterId, outcome: 'attested' });
    expect(signed.isError).toBe(false);
    expect(signed.body.matter.stage).toBe('sign');
    expect((await toReserved(client, workspaceId, matterId)).escalated.reservedAct).toBe('file');
    const filed = await call(client, 'sandbox_gig_result', { workspaceId, matterId, outcome: 'attested', signer: FIXTURE.eligibleSigner });
    expect(filed.body.matter.status).toBe('fulfilled');
    expect(filed.body.matter.attestedActs).toBe(2);

    const done = await call(client, 'sandbox_advance_matter', { workspaceId, matterId });
    expectRefusal(done, 409);
    const noGig = await call(client, 'sandbox_gig_result', { workspaceId, matterId, outcome: 'attested' });
    expect(noGig.isError).toBe(true);
    expect(noGig.body.code).toBe('NO_PENDING_GIG');
    expect(noGig.body.error).toContain('fulfilled');
    expect(noGig.body.fix).toMatch(/sandbox_advance_matter/);
  });

  it('answers send_back and declined as the Signer would, and relays the memo refusal', async () => {
    const client = await connect();
    const { workspaceId, matterId } = await matterIn(client);
    await toReserved(client, workspaceId, matterId);
    expectRefusal(await call(client, 'sandbox_gig_result', { workspaceId, matterId, outcome: 'send_back' }), 422);
    const back = await call(client, 'sandbox_gig_result', { workspaceId, matterId, outcome: 'send_back', memo: 'claims 3-5 are indefinite' });
    expect(back.body.matter.status).toBe('prepare');
    const pending = await toReserved(client, workspaceId, matterId);
    const wrongGig = await call(client, 'sandbox_gig_result', { workspaceId, matterId, outcome: 'declined', memo: 'no', gigId: 'gig_other' });
    expectRefusal(wrongGig, 409);
    const declined = await call(client, 'sandbox_gig_result', { workspaceId, matterId, outcome: 'declined', memo: 'outside my practice', gigId: pending.matter.pendingGigId });
    expect(declined.body.matter.status).toBe('needs_client_direction');
    expect(declined.body.matter.needsClientDirection).toBe(true);
  });

  it('ticks a notice-eve ladder and reads the reminder off the tail', async () => {
    const client = await connect();
    const { workspaceId, assetId } = await matterIn(client, { assetTitle: `${FIXTURE.noticeEvePrefix} rehearsal`, clientName: 'Ada' });
    const tick = await call(client, 'sandbox_tick_ladder', { workspaceId, assetId, days: 1 });
    expect(tick.isError).toBe(false);
    expect(tick.body.daysUntilDeadline).toBe(30);
    const reminders = await call(client, 'sandbox_read_events', { workspaceId, feed: 'reminders' });
    expect(reminders.body.type).toBe('OK');
    expect(reminders.body.results.map((e: { kind: string }) => e.kind)).toContain('reminder.notice');
    const notice = reminders.body.results.find((e: { kind: string }) => e.kind === 'reminder.notice');
    expect(notice.subject).toBe(assetId);
    expect(notice.data.atDaysRemaining).toBe(30);

    const timeline = await call(client, 'sandbox_read_events', { workspaceId, after: 0, limit: 2 });
    expect(timeline.body.results.map((e: { seq: number }) => e.seq)).toEqual([1, 2]);
    const tail = await call(client, 'sandbox_read_events', { workspaceId, after: timeline.body.latestSeq });
    expect(tail.body.type).toBe('EMPTY');

    expectRefusal(await call(client, 'sandbox_tick_ladder', { workspaceId, assetId: 'as_unknown', days: 1 }), 404);
    expectInvalidArguments(await call(client, 'sandbox_tick_ladder', { workspaceId, assetId, days: 1.5 }), /days|int/i);
    expectInvalidArguments(await call(client, 'sandbox_read_events', { workspaceId, feed: 'everything' }), /feed/);
  });

  it('refuses an unknown workspace with the typed 404 naming the fix', async () => {
    const client = await connect();
    const gone = await call(client, 'sandbox_create_matter', { workspaceId: 'ws_gone', matterType: 'demand_letter' });
    expectRefusal(gone, 404);
    expect(gone.body.fix).toBe('POST /workspaces');
    expectInvalidArguments(await call(client, 'sandbox_create_matter', { workspaceId: 'ws_gone', matterType: 'divorce' }), /matterType/);
  });

  it('keeps rehearsal keyless even when a key is configured', async () => {
    const client = await connect({ key: 'lwk_' + 'y'.repeat(43) });
    const { workspaceId, matterId } = await matterIn(client);
    expect((await call(client, 'sandbox_advance_matter', { workspaceId, matterId })).body.matter.stage).toBe('prepare');
  });
});
