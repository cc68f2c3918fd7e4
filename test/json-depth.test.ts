/**
 * A JSON body nested deeper than the contract could need is refused 400
 * before anything recursive reads it, on every write door the contract
 * documents (a 20,000-deep body once answered 500 on five of them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_DEPTH, nestsDeeperThan } from '../src/http/json-body.ts';
import { call, testApp, topLevelHeaders, type TestApp } from './helpers/app.ts';

describe('nestsDeeperThan', () => {
  it('counts objects and arrays, not brackets inside strings', () => {
    expect(nestsDeeperThan('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(nestsDeeperThan('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(nestsDeeperThan(`{"a":"${'['.repeat(100)}"}`, 1)).toBe(false);
    expect(nestsDeeperThan(`{"a":"\\"${'{'.repeat(100)}"}`, 1)).toBe(false);
    expect(nestsDeeperThan(`["\\\\",${'['.repeat(3)}]]]]`, 3)).toBe(true);
  });
});

describe('every write door', () => {
  let app: TestApp;
  let key: Record<string, string>;
  const grains: Record<string, string> = {};
  beforeAll(async () => {
    app = await testApp();
    key = await topLevelHeaders(app);
    grains.workspaceId = (await call(app, 'POST', '/workspaces')).body.workspace.id;
    grains.tenantId = (await call(app, 'POST', '/tenants')).body.tenant.id;
    grains.firmId = (await call(app, 'POST', '/firms')).body.firm.id;
  });
  afterAll(async () => app.close());

  const deep = (depth: number) => `{"note":${'['.repeat(depth)}${']'.repeat(depth)}}`;

  it('refuses a body nested 20,000 deep, or one level past the limit, with a worded 400 and writes nothing', async () => {
    const doc = (await call(app, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const doors = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).filter((m) => m === 'post' || m === 'put').map((m) => [m.toUpperCase(), path] as const));
    expect(doors.length).toBeGreaterThan(50);
    const seqs = async () => Promise.all(Object.values(grains).map((g) => app.services.journal.latestSeq(g)));
    const before = await seqs();
    for (const [method, path] of doors) {
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => grains[name] ?? 'x_0000000000000000000000000');
      for (const depth of [20_000, MAX_BODY_DEPTH + 1]) {
        const res = await app.inject({ method, url, payload: deep(depth), headers: { ...key, 'content-type': 'application/json' } });
        expect(res.statusCode, `${method} ${path} at depth ${depth}: ${res.body.slice(0, 200)}`).toBe(400);
        expect(res.json()).toMatchObject({ code: 'BODY_TOO_DEEP', error: expect.stringContaining(`${MAX_BODY_DEPTH} levels`) });
      }
    }
    expect(await seqs()).toEqual(before);
  });

  it('lets a body at the limit through to the door (which answers as it does for any body)', async () => {
    const res = await call(app, 'POST', `/workspaces/${grains.workspaceId}/matters`, JSON.parse(`{"matterType":"patent_provisional","merits":${'{"x":'.repeat(MAX_BODY_DEPTH - 2)}1${'}'.repeat(MAX_BODY_DEPTH - 2)}}`));
    expect(res.body.code).not.toBe('BODY_TOO_DEEP');
  });
});
