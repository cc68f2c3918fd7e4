/**
 * The OpenAPI 3.1 contract: it validates with an independent validator, it
 * documents exactly the routes the router serves (enumerated from the router
 * itself, not from the generator), and every operation is complete.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MATTER_TYPES } from '../src/domain/matter-types.ts';
import { needsKey } from '../src/http/auth.ts';
import { call, testApp, type TestApp } from './helpers/app.ts';
import { routerRoutes, toFastifyPath } from './helpers/routes.ts';

let app: TestApp;
let doc: any;
beforeAll(async () => {
  app = await testApp();
  doc = (await call(app, 'GET', '/openapi.json')).body;
});
afterAll(async () => app.close());

const operations = () => Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));

describe('/openapi.json', () => {
  it('is OpenAPI 3.1.0, contract version 0.3.0, and valid to an independent validator', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.3.0');
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents every route the router serves, and serves every documented path', () => {
    const served = routerRoutes(app).map((r) => `${r.method} ${r.path}`).sort();
    const documented = operations().map((o) => `${o.method} ${toFastifyPath(o.path)}`).sort();
    expect(documented).toEqual(served);
  });

  it('enumerates the ratified matter types, and only those', () => {
    const schema = doc.paths['/matters'].post.requestBody.content['application/json'].schema;
    expect(schema.properties.matterType.enum).toEqual([...MATTER_TYPES]);
    expect(schema.required).toContain('matterType');
  });

  it('says what a Tenant mint requires: an Offer, which may fix the matter type', async () => {
    const schema = doc.paths['/tenants/{tenantId}/matters'].post.requestBody.content['application/json'].schema;
    expect(schema.required).toEqual(['offer']);
    expect(schema.properties.matterType.enum).toEqual([...MATTER_TYPES]);
    // The contract's word holds: without the Offer the mint is refused, without a matter type the Offer's applies.
    const tenant = (await call(app, 'POST', '/tenants')).body.tenant.id;
    await call(app, 'PUT', `/tenants/${tenant}/offers`, [{ id: 'prov', title: 'Provisional', priceUsd: 199, matterType: 'patent_provisional' }]);
    expect((await call(app, 'POST', `/tenants/${tenant}/matters`, {})).status).toBe(422);
    const minted = await call(app, 'POST', `/tenants/${tenant}/matters`, { offer: 'prov' });
    expect(minted.status).toBe(201);
    expect(minted.body.matter.matterType).toBe('patent_provisional');
  });

  it('declares every path parameter of every operation', () => {
    for (const { path, method, op } of operations()) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declared = (op.parameters ?? []).filter((p: { in: string }) => p.in === 'path').map((p: { name: string; required: boolean }) => {
        expect(p.required, `${method} ${path} ${p.name}`).toBe(true);
        return p.name;
      });
      expect(declared.sort(), `${method} ${path}`).toEqual(inPath);
    }
  });

  it('gives every operation a unique operationId, a tag, its success answer and its refusals', () => {
    const ids = new Set<string>();
    for (const { path, method, op } of operations()) {
      const where = `${method} ${path}`;
      expect(ids.has(op.operationId), where).toBe(false);
      ids.add(op.operationId);
      expect(op.tags?.length, where).toBeGreaterThan(0);
      const statuses = Object.keys(op.responses);
      // A door that can never succeed in this preview (a restricted upstream) documents its BLOCKED answer instead.
      const success = statuses.filter((s) => s.startsWith('2'));
      expect(success.length || statuses.includes('403') ? true : `${where} documents no success answer`, where).toBe(true);
      for (const s of [...success, ...(success.length ? [] : ['403'])]) expect(op.responses[s].content, `${where} ${s}`).toBeDefined();
      expect(statuses, where).toEqual(expect.arrayContaining(['4XX', '5XX']));
      for (const [, media] of Object.entries(op.requestBody?.content ?? {})) expect((media as { schema?: unknown }).schema, where).toBeDefined();
    }
  });

  it('marks exactly the top-level writes as needing the bearer key, with their 401', () => {
    for (const { path, method, op } of operations()) {
      if (op.security) {
        expect(needsKey(method, toFastifyPath(path)), `${method} ${path}`).toBe(true);
        expect(op.security).toEqual([{ bearer: [] }]);
        expect(op.responses['401'], `${method} ${path}`).toBeDefined();
      }
      if (!needsKey(method, toFastifyPath(path))) expect(op.security, `${method} ${path}`).toBeUndefined();
    }
    expect(doc.paths['/matters'].post.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/patent/draft-claims'].post.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/workspaces/{workspaceId}/matters'].post.security).toBeUndefined();
    expect(doc.paths['/matters'].get.security).toBeUndefined();
    // Top-level writes that opt out of the key in their route config (needsKey above sees only method and path).
    for (const path of ['/keys', '/workspaces', '/tenants', '/firms', '/conflicts/{practitionerId}/entries']) expect(doc.paths[path].post.security, path).toBeUndefined();
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('response schemas document and never filter: fields they do not name are still sent', async () => {
    const res = await call(app, 'POST', '/keys', { email: 'a@b.co' });
    const documented = Object.keys(doc.paths['/keys'].post.responses['201'].content['application/json'].schema.properties);
    expect(documented).not.toContain('notice');
    expect(res.body.notice).toMatch(/cannot be shown again/);
  });
});
