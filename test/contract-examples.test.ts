/**
 * The example-driven contract test (issue 19): an agent that reads only
 * `/openapi.json` must be able to build a request every door accepts from the
 * examples the document carries. A real listening service is started; the
 * test fetches the document and, for EVERY operation it lists (walked from
 * the document, never a hand list), builds the request from the examples
 * alone: path parameters, query parameters, required headers and the body.
 * It fails on:
 * - a parameter or request body with no example;
 * - any 400 or 422: an example the service refuses is a broken example;
 * - a 404 naming a record the test made (a grain, a Matter, an Asset, a
 *   ladder, a webhook endpoint), or a route the router does not serve;
 * - any 5xx, or a status the operation does not document.
 * Other answers (a 403 BLOCKED a door gives every caller by design, a 409 a
 * door gives on a Matter not at the stage it needs, a 401 of an unsigned
 * callback) are the doors' documented refusals of a well-formed request.
 *
 * The prerequisites, which a fresh service does not hold, are made first
 * with the examples of the doors that make them, and each operation gets its
 * own, so no operation depends on another's order:
 * - an API key (`POST /keys`, its example body) for every top-level request,
 *   and one of its own for each door about the key itself (`/keys/self…`:
 *   a roll or a revocation must not end the key the others use);
 * - the grain of a prefixed door (`POST /workspaces`, `/tenants`, `/firms`),
 *   a Tenant's Offers declared by `PUT /tenants/{tenantId}/offers`'s example
 *   (a Tenant mints only against a declared Offer);
 * - a Matter (`POST …/matters`, its example body) for `{id}` under
 *   `/matters`, its Asset for `/assets/{id}` and `/deadlines/{assetId}`;
 * - a webhook endpoint (`POST …/webhooks`, its example body) for `/webhooks/{id}`.
 * Every other parameter is sent as its example says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningApp, type TestApp } from './helpers/app.ts';

type Operation = { path: string; method: string; op: any };

let app: TestApp;
let base: string;
let doc: any;
beforeAll(async () => {
  ({ app, url: base } = await listeningApp());
  const res = await fetch(`${base}/openapi.json`);
  expect(res.status).toBe(200);
  doc = await res.json();
});
afterAll(async () => app?.close());

const operations = (): Operation[] => Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));
const isCapability = (o: Operation) => (o.op.tags ?? []).includes('capabilities');

const NONE = Symbol('no example');

/** A parameter's example: the parameter's own, its first named example, its schema's. */
function paramExample(p: any): unknown {
  if ('example' in p) return p.example;
  const named = Object.values<any>(p.examples ?? {})[0];
  if (named && 'value' in named) return named.value;
  if (Array.isArray(p.schema?.examples) && p.schema.examples.length) return p.schema.examples[0];
  return NONE;
}

/** The JSON body's example: the media's own, or its first named example. */
function bodyExample(op: any): unknown {
  const media = op.requestBody?.content?.['application/json'];
  if (!media) return NONE;
  if ('example' in media) return media.example;
  const named = Object.values<any>(media.examples ?? {})[0];
  return named && 'value' in named ? named.value : NONE;
}

/** What is missing an example in one operation. */
function unexampled({ op }: Operation): string[] {
  const missing = (op.parameters ?? []).filter((p: any) => paramExample(p) === NONE).map((p: any) => `${p.in} parameter ${p.name}`);
  if (op.requestBody && bodyExample(op) === NONE) missing.push('request body');
  return missing;
}

interface Answer {
  status: number;
  body: any;
}

async function send(method: string, path: string, { query, body, headers = {} }: { query?: Record<string, unknown>; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const qs = new URLSearchParams(Object.entries(query ?? {}).map(([k, v]) => [k, String(v)])).toString();
  const res = await fetch(`${base}${path}${qs ? `?${qs}` : ''}`, {
    method,
    // JSON answers: the event stream door answers its subscription contract rather than holding a stream open.
    headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body !== undefined ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text.slice(0, 200);
  }
  return { status: res.status, body: json };
}

/** The example of the operation at `path` and `method` (a create door's, to make a prerequisite). */
function exampleOf(path: string, method: string): unknown {
  const op = doc.paths[path]?.[method];
  if (!op) throw new Error(`the document has no ${method.toUpperCase()} ${path}`);
  const body = bodyExample(op);
  if (body === NONE) throw new Error(`${method.toUpperCase()} ${path} has no body example to make a prerequisite with`);
  return body;
}

let keyHeaders: Record<string, string> | undefined;
async function topLevelKey(): Promise<Record<string, string>> {
  keyHeaders ??= await issuedKey();
  return keyHeaders;
}

/** A key of its own: the doors about the key itself roll or revoke it, and every other operation's key must outlive them. */
async function issuedKey(): Promise<Record<string, string>> {
  const issued = await send('POST', '/keys', { body: exampleOf('/keys', 'post') });
  if (issued.status !== 201) throw new Error(`POST /keys with its example answered ${issued.status}: ${JSON.stringify(issued.body)}`);
  return { authorization: `Bearer ${issued.body.key}` };
}

const GRAINS: Record<string, { create: string; field: string }> = {
  workspaceId: { create: '/workspaces', field: 'workspace' },
  tenantId: { create: '/tenants', field: 'tenant' },
  firmId: { create: '/firms', field: 'firm' },
};

/** The records one operation's request names, made fresh for it. */
class Prerequisites {
  values = new Map<string, string>();
  made = new Set<string>();
  constructor(
    readonly prefix: string,
    readonly templatePrefix: string,
    readonly headers: Record<string, string>,
  ) {}

  static async for(path: string): Promise<Prerequisites> {
    const grain = /^\/(workspaces|tenants|firms)\/\{(workspaceId|tenantId|firmId)\}/.exec(path);
    if (!grain) return new Prerequisites('', '', path.startsWith('/keys/self') ? await issuedKey() : await topLevelKey());
    const { create, field } = GRAINS[grain[2]];
    const opened = await send('POST', create);
    if (opened.status !== 201) throw new Error(`POST ${create} answered ${opened.status}`);
    const id = opened.body[field].id;
    const p = new Prerequisites(`${create}/${id}`, grain[0], {});
    p.values.set(grain[2], id);
    p.made.add(grain[2]);
    if (grain[2] === 'tenantId') {
      const declared = await send('PUT', `${p.prefix}/offers`, { body: exampleOf('/tenants/{tenantId}/offers', 'put') });
      if (declared.status !== 200) throw new Error(`PUT /tenants/{tenantId}/offers with its example answered ${declared.status}: ${JSON.stringify(declared.body)}`);
    }
    return p;
  }

  private async matter(): Promise<{ id: string; assetId: string }> {
    const opened = await send('POST', `${this.prefix}/matters`, { body: exampleOf(`${this.templatePrefix}/matters`, 'post'), headers: this.headers });
    if (opened.status !== 201) throw new Error(`POST ${this.templatePrefix}/matters with its example answered ${opened.status}: ${JSON.stringify(opened.body)}`);
    return opened.body.matter;
  }

  /** The value of the path parameter `name` that follows `segment`: a record made for it, or undefined (then its example). */
  async value(segment: string, name: string): Promise<string | undefined> {
    const key = `${segment}/${name}`;
    if (this.values.has(key)) return this.values.get(key);
    let value: string | undefined;
    if (key === 'matters/id') value = (await this.matter()).id;
    else if (key === 'assets/id' || key === 'deadlines/assetId') value = (await this.matter()).assetId;
    else if (key === 'webhooks/id') {
      const made = await send('POST', `${this.prefix}/webhooks`, { body: exampleOf(`${this.templatePrefix}/webhooks`, 'post'), headers: this.headers });
      if (made.status !== 201) throw new Error(`POST ${this.templatePrefix}/webhooks with its example answered ${made.status}: ${JSON.stringify(made.body)}`);
      value = made.body.webhook.id;
    }
    if (value !== undefined) {
      this.values.set(key, value);
      this.made.add(name);
    }
    return value;
  }
}

/** 404 codes that say a record the test made is not there: never a documented answer to these requests. */
const MADE_BUT_MISSING = new Set(['WORKSPACE_NOT_FOUND', 'TENANT_NOT_FOUND', 'FIRM_NOT_FOUND', 'MATTER_NOT_FOUND', 'ASSET_NOT_FOUND', 'LADDER_NOT_FOUND', 'WEBHOOK_NOT_FOUND', 'ROUTE_NOT_FOUND']);

/** Sends one operation's example request; the failure it shows, or null. */
async function tryOperation({ path, method, op }: Operation): Promise<string | null> {
  const where = `${method} ${path}`;
  const missing = unexampled({ path, method, op });
  if (missing.length) return `${where}: no example for ${missing.join(', ')}`;
  let pre: Prerequisites;
  try {
    pre = await Prerequisites.for(path);
  } catch (error) {
    return `${where}: prerequisite failed: ${(error as Error).message}`;
  }
  const params = op.parameters ?? [];
  let url = '';
  for (const part of path.split('/').slice(1)) {
    const named = /^\{(.+)\}$/.exec(part);
    if (!named) {
      url += `/${part}`;
      continue;
    }
    const segment = url.split('/').pop() ?? '';
    let value: string | undefined;
    try {
      value = pre.values.get(named[1]) ?? (await pre.value(segment, named[1]));
    } catch (error) {
      return `${where}: prerequisite failed: ${(error as Error).message}`;
    }
    value ??= String(paramExample(params.find((p: any) => p.in === 'path' && p.name === named[1])));
    url += `/${encodeURIComponent(value)}`;
  }
  const query = Object.fromEntries(params.filter((p: any) => p.in === 'query').map((p: any) => [p.name, paramExample(p)]));
  // Headers the door requires (the signed callback's); optional ones (If-Match, Idempotency-Key) are left out.
  const headers = { ...pre.headers, ...Object.fromEntries(params.filter((p: any) => p.in === 'header' && p.required).map((p: any) => [p.name, String(paramExample(p))])) };
  const body = op.requestBody ? bodyExample(op) : undefined;
  const answer = await send(method, url, { query, body, headers });
  const said = `${answer.status} ${answer.body?.code ?? ''}: ${answer.body?.error ?? JSON.stringify(answer.body).slice(0, 200)}`;
  if (!(String(answer.status) in op.responses)) return `${where}: answered an undocumented status, ${said}`;
  if (answer.status === 400 || answer.status === 422) return `${where}: the example request is refused, ${said}`;
  if (answer.status === 404 && MADE_BUT_MISSING.has(answer.body?.code)) return `${where}: a record the test made is not found, ${said}`;
  if (answer.status >= 500) return `${where}: ${said}`;
  return null;
}

async function failuresOf(ops: Operation[]): Promise<string[]> {
  const failures: string[] = [];
  for (const o of ops) {
    const failure = await tryOperation(o);
    if (failure) failures.push(failure);
  }
  return failures;
}

describe('every operation, built from the examples alone', () => {
  it('walks every operation the document lists', () => {
    expect(operations().length).toBeGreaterThan(150);
  });

  it('the service accepts every example request (all but the capability doors)', async () => {
    const ops = operations().filter((o) => !isCapability(o));
    const failures = await failuresOf(ops);
    expect(failures, `${failures.length} of ${ops.length} operations:\n${failures.join('\n')}`).toEqual([]);
  }, 180_000);

  it('the service accepts every example request of the capability doors', async () => {
    const ops = operations().filter(isCapability);
    expect(ops.length).toBeGreaterThan(0);
    const failures = await failuresOf(ops);
    expect(failures, `${failures.length} of ${ops.length} operations:\n${failures.join('\n')}`).toEqual([]);
  }, 180_000);

  it('every refusal an operation documents has an example: the Refusal component carries examples', () => {
    expect(doc.components.schemas.Refusal.examples?.length).toBeGreaterThan(0);
    for (const { path, method, op } of operations()) {
      for (const [status, answer] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400) continue;
        expect(answer.content['application/json'].schema.$ref, `${method} ${path} ${status}`).toBe('#/components/schemas/Refusal');
      }
    }
  });
});
