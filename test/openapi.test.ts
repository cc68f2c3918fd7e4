/**
 * The OpenAPI 3.1 contract: it validates with an independent validator, it
 * documents exactly the routes the router serves (enumerated from the router
 * itself, not from the generator), and every operation is complete.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MATTER_TYPES } from '../src/domain/matter-types.ts';
import { REFUSALS } from '../src/domain/refusals.ts';
import { WEBHOOK_EVENT_TYPES } from '../src/domain/webhook-events.ts';
import { needsKey } from '../src/http/auth.ts';
import { rmSync } from 'node:fs';
import { createApp } from '../src/compose.ts';
import { SqliteJournal } from '../src/journal/sqlite.ts';
import { call, tempDir, testApp, type TestApp } from './helpers/app.ts';
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

  it('is valid to @apidevtools/swagger-parser too (its schema and its own checks), with an SPDX licence identifier', async () => {
    // A second validator that reads the OpenAPI 3.1 schema more strictly (a licence needs an identifier or a url) and checks what the schema cannot (unique operationIds, path parameters).
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
    expect(doc.info.license.identifier).toMatch(/^LicenseRef-[A-Za-z0-9.-]+$/);
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

  it('gives every operation a unique operationId, a tag, a summary, a description and its success answer', () => {
    const ids = new Set<string>();
    for (const { path, method, op } of operations()) {
      const where = `${method} ${path}`;
      expect(ids.has(op.operationId), where).toBe(false);
      ids.add(op.operationId);
      expect(op.tags?.length, where).toBeGreaterThan(0);
      expect(op.summary, where).toMatch(/\S/);
      expect(op.description, where).toMatch(/\S/);
      const statuses = Object.keys(op.responses);
      // A door that can never succeed in this preview (a restricted upstream) documents its BLOCKED answer instead.
      const success = statuses.filter((s) => s.startsWith('2'));
      expect(success.length || statuses.includes('403') ? true : `${where} documents no success answer`, where).toBe(true);
      for (const s of [...success, ...(success.length ? [] : ['403'])]) expect(op.responses[s].content, `${where} ${s}`).toBeDefined();
      for (const [, media] of Object.entries(op.requestBody?.content ?? {})) expect((media as { schema?: unknown }).schema, where).toBeDefined();
    }
  });

  it('lists each status an operation refuses with, and the catalog codes it can carry there; no catch-all', () => {
    for (const { path, method, op } of operations()) {
      for (const [status, answer] of Object.entries<any>(op.responses)) {
        const where = `${method} ${path} ${status}`;
        expect(status, where).toMatch(/^[1-5][0-9][0-9]$/);
        if (Number(status) < 400) continue;
        expect(answer.content['application/json'].schema.$ref, where).toBe('#/components/schemas/Refusal');
        const codes = op['x-refusal-codes'][status];
        expect(codes.length, where).toBeGreaterThan(0);
        expect(answer.description, where).toContain(codes.join(', '));
        for (const code of codes) expect(REFUSALS[code as keyof typeof REFUSALS]?.status, `${where} ${code}`).toBe(Number(status));
      }
      // Every door refuses a malformed key, and answers 500 rather than a partial write.
      expect(op['x-refusal-codes']['401'], `${method} ${path}`).toEqual(expect.arrayContaining(['KEY_MALFORMED', 'KEY_UNKNOWN']));
      expect(op.responses['500'], `${method} ${path}`).toBeDefined();
    }
    // A door without a body never refuses one; a GET never answers 413.
    expect(doc.paths['/matters/{id}'].get.responses['413']).toBeUndefined();
    expect(doc.paths['/matters'].post.responses['413']).toBeDefined();
  });

  it('marks exactly the top-level writes as needing the bearer key, with KEY_REQUIRED; every keyless door declares security []', () => {
    for (const { path, method, op } of operations()) {
      const keyed = op.security.length > 0;
      if (keyed) expect(needsKey(method, toFastifyPath(path)), `${method} ${path}`).toBe(true);
      if (!needsKey(method, toFastifyPath(path))) expect(op.security, `${method} ${path}`).toEqual([]);
      expect(op.security, `${method} ${path}`).toEqual(keyed ? [{ bearer: [] }] : []);
      expect(op['x-refusal-codes']['401'].includes('KEY_REQUIRED'), `${method} ${path}`).toBe(keyed);
    }
    expect(doc.paths['/matters'].post.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/patent/draft-claims'].post.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/workspaces/{workspaceId}/matters'].post.security).toEqual([]);
    expect(doc.paths['/matters'].get.security).toEqual([]);
    // Top-level writes that opt out of the key in their route config (needsKey above sees only method and path).
    for (const path of ['/keys', '/workspaces', '/tenants', '/firms', '/conflicts/{practitionerId}/entries']) expect(doc.paths[path].post.security, path).toEqual([]);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('documents what an endpoint is sent, event by event, in the webhooks section; outcome.filed with the artifact hash, the Attestation and the receipt', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    const filed = doc.webhooks['outcome.filed'].post;
    expect(filed.parameters.map((p: any) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    const data = filed.requestBody.content['application/json'].schema.properties.data;
    expect(data.required).toEqual(expect.arrayContaining(['artifactHash', 'attestation', 'receipt', 'matterId', 'matterType']));
    expect(data.properties.attestation).toEqual({ $ref: '#/components/schemas/Attestation' });
  });

  it('declares Idempotency-Key on every write, with its refusals and the replay header, and on no read', () => {
    for (const { path, method, op } of operations()) {
      const header = (op.parameters ?? []).find((p: any) => p.in === 'header' && p.name === 'idempotency-key');
      const write = method === 'POST' || method === 'PUT';
      expect(Boolean(header), `${method} ${path}`).toBe(write);
      if (!write) continue;
      expect(header.required, `${method} ${path}`).toBeFalsy();
      expect(header.schema.pattern).toBe('^[\\x20-\\x7E]{1,255}$');
      expect(op['x-refusal-codes']['400'], `${method} ${path}`).toContain('IDEMPOTENCY_KEY_INVALID');
      expect(op['x-refusal-codes']['409'], `${method} ${path}`).toEqual(expect.arrayContaining(['IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_ANSWER_LOST']));
      expect(op['x-refusal-codes']['422'], `${method} ${path}`).toContain('IDEMPOTENCY_KEY_REUSED');
      // Only a top-level door has callers with nothing to keep a key under.
      expect(op['x-refusal-codes']['400'].includes('IDEMPOTENCY_KEY_UNSCOPED'), `${method} ${path}`).toBe(!/^\/(workspaces|tenants|firms)\/\{/.test(path));
      for (const answer of Object.values(op.responses) as any[]) expect(answer.headers['Idempotent-Replayed'], `${method} ${path}`).toEqual({ $ref: '#/components/headers/IdempotentReplayed' });
    }
    expect(doc.components.headers.IdempotentReplayed.schema).toEqual({ type: 'string', enum: ['true'] });
  });

  it('declares requests as enforced: a defaulted parameter is optional, an optional body is not required', async () => {
    const params = Object.fromEntries(doc.paths['/events'].get.parameters.map((p: any) => [p.name, p]));
    for (const name of ['after', 'limit', 'feed']) expect(params[name].required, name).toBeFalsy();
    expect((await call(app, 'GET', '/events')).status).toBe(200);
    expect(doc.paths['/workspaces/{workspaceId}/matters/{id}/advance'].post.requestBody.required).toBe(false);
    expect(doc.paths['/workspaces/{workspaceId}/matters'].post.requestBody.required).toBe(true);
    const grain = doc.paths['/workspaces/{workspaceId}/matters'].get.parameters.find((p: any) => p.name === 'workspaceId');
    expect(grain.schema.pattern).toBeDefined();
  });

  it('the schemas write the replies: a field the schema does not declare never leaves', async () => {
    // The reply check would refuse this reply before the serializer sees it: built without it, as in production.
    const previous = process.env.LEGALWORK_REPLY_CHECK;
    process.env.LEGALWORK_REPLY_CHECK = '';
    const dir = tempDir();
    const journal = new SqliteJournal(dir);
    const probe = await createApp({ journal });
    process.env.LEGALWORK_REPLY_CHECK = previous;
    // A route added on purpose with a reply wider than its schema.
    probe.get('/probe-undeclared', { schema: { response: { 200: { type: 'object', additionalProperties: false, properties: { kept: { type: 'string' } } } } } }, async () => ({ kept: 'yes', secret: 'never sent' }));
    try {
      expect((await call(probe, 'GET', '/probe-undeclared')).raw).toBe('{"kept":"yes"}');
    } finally {
      await probe.close();
      await journal.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('/openapi.json: every success answer shows an example the schema holds (issue 19)', () => {
  /** The example of a media object: its own `example`, or the first of its named `examples`. */
  const exampleOf = (media: any): { found: boolean; value?: unknown } => {
    if ('example' in media) return { found: true, value: media.example };
    const named = Object.values<any>(media.examples ?? {})[0];
    return named && 'value' in named ? { found: true, value: named.value } : { found: false };
  };

  it('gives every operation\'s 2xx application/json answer an example, valid under that answer\'s schema', () => {
    // The reply check's settings (src/http/reply-check.ts); each answer's schema is compiled with the
    // document's components beside it, so its `#/components/schemas/…` references resolve as in the document.
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
    const missing: string[] = [];
    const invalid: string[] = [];
    let answers = 0;
    for (const { path, method, op } of operations()) {
      for (const [status, answer] of Object.entries<any>(op.responses)) {
        const media = answer.content?.['application/json'];
        if (!status.startsWith('2') || !media) continue;
        answers++;
        const where = `${method} ${path} ${status}`;
        const { found, value } = exampleOf(media);
        if (!found) {
          missing.push(where);
          continue;
        }
        const key = JSON.stringify(media.schema);
        let validate = compiled.get(key);
        if (!validate) compiled.set(key, (validate = ajv.compile({ ...media.schema, components: { schemas: doc.components.schemas } })));
        if (!validate(value)) invalid.push(`${where}: ${ajv.errorsText(validate.errors)}`);
      }
    }
    expect(answers).toBeGreaterThan(150);
    expect(missing, 'success answers without an example').toEqual([]);
    expect(invalid, 'examples their own answer schema refuses').toEqual([]);
  });

  it('shows the shared ids in the composed answers: the Matter and Asset of the path examples', () => {
    const example = doc.paths['/matters/{id}'].get.responses['200'].content['application/json'].example;
    const id = doc.paths['/matters/{id}'].get.parameters.find((p: any) => p.name === 'id').example;
    expect(example.matter.id).toBe(id);
    expect(example.asset.id).toBe(example.matter.assetId);
  });
});

describe('/openapi.json?form=compact: the contract an agent can hold', () => {
  let compact: any;
  let compactBytes: number;
  let fullBytes: number;
  beforeAll(async () => {
    const full = await call(app, 'GET', '/openapi.json');
    const res = await call(app, 'GET', '/openapi.json?form=compact');
    expect(res.status).toBe(200);
    compact = res.body;
    compactBytes = Buffer.byteLength(res.raw);
    fullBytes = Buffer.byteLength(full.raw);
  });

  it('is valid OpenAPI 3.1 to the same independent validators', async () => {
    const result = await new Validator().validate(structuredClone(compact));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    await expect(SwaggerParser.validate(structuredClone(compact))).resolves.toBeDefined();
  });

  it('lists every top-level operation, each once, and names the grain prefixes as path-level servers', () => {
    for (const { path, method } of operations()) {
      if (/^\/(workspaces|tenants|firms)\/\{/.test(path)) continue;
      expect(compact.paths[path]?.[method.toLowerCase()], `${method} ${path}`).toBeDefined();
    }
    expect(compact.paths['/matters/{id}'].servers.map((s: any) => s.url)).toEqual(['/', '/workspaces/{workspaceId}', '/tenants/{tenantId}']);
    // A door only a grain serves keeps its prefixed path.
    expect(compact.paths['/tenants/{tenantId}/offers'].put).toBeDefined();
    expect(compact.paths['/workspaces/{workspaceId}/matters']).toBeUndefined();
  });

  it('says once what every operation may answer, and names each schema it repeated', () => {
    for (const status of ['429', '500', '503']) expect(compact.components.responses[`Any${status}`], status).toBeDefined();
    expect(compact.info.description).toContain('Every operation may also answer');
    expect(compact.paths['/matters/{id}'].get.responses['429']).toBeUndefined();
    const refs = new Set([...JSON.stringify(compact).matchAll(/"#\/components\/(schemas|responses|parameters)\/([^"]+)"/g)].map((m) => `${m[1]}/${m[2]}`));
    for (const ref of refs) {
      const [kind, name] = ref.split('/');
      expect(compact.components[kind][name], ref).toBeDefined();
    }
    expect([...refs].some((r) => r.startsWith('schemas/Shared'))).toBe(true);
  });

  it('is at most a quarter of the full document', () => {
    // Measured on the bytes served (issue 19: at most a quarter). 24.2 % on 2026-11-26: 313 of 1,294 KB.
    expect(compactBytes / fullBytes, `${compactBytes} of ${fullBytes} bytes`).toBeLessThanOrEqual(0.25);
  });

  it('is linked from /llms.txt and the agent card', async () => {
    expect((await call(app, 'GET', '/llms.txt')).raw).toContain('/openapi.json?form=compact');
    expect((await call(app, 'GET', '/.well-known/agent-card.json')).body.description).toContain('/openapi.json?form=compact');
    expect((await call(app, 'GET', '/.well-known/agents.json')).raw).toContain('/openapi.json?form=compact');
  });
});
