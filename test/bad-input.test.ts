/**
 * Bad input on the Matter doors: every malformed, oversized, mistyped,
 * incomplete, unknown or poisoned request is a worded 4xx with a JSON body,
 * and nothing is written (the grain's journal `latestSeq` does not move).
 * A fast-check property throws generated junk at every write door, in a
 * workspace and on the top-level surface, and never sees a 5xx.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BODY_LIMIT } from '../src/http/app.ts';
import { call, testApp, topLevelHeaders, topLevelKey, workspace, type TestApp } from './helpers/app.ts';

let app: TestApp;
let ws: string;
let grain: string;
let matterId: string;

/** Sends a raw body (any bytes) with the given content type. */
async function raw(method: string, url: string, payload: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: method as never, url, payload, headers: { 'content-type': 'application/json', ...headers } });
  let body: any;
  try {
    body = res.json();
  } catch {
    body = undefined;
  }
  return { status: res.statusCode, body, headers: res.headers };
}

const seqs = async () => [await app.services.journal.latestSeq(grain), await app.services.journal.latestSeq((await topLevelKey(app)).grain)];

/** The request is refused with `status`, a worded JSON error and a code, and nothing is journaled anywhere. */
async function refusedWithoutWrite(status: number, send: () => Promise<{ status: number; body: any; headers: Record<string, unknown> }>, mentions?: RegExp) {
  const before = await seqs();
  const res = await send();
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(String(res.headers['content-type'])).toContain('application/json');
  expect(typeof res.body?.error).toBe('string');
  expect(res.body.error.length).toBeGreaterThan(10);
  expect(typeof res.body.code).toBe('string');
  if (mentions) expect(res.body.error).toMatch(mentions);
  expect(await seqs()).toEqual(before);
  return res.body;
}

beforeAll(async () => {
  app = await testApp();
  ws = await workspace(app);
  grain = ws.split('/')[2];
  const res = await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional' });
  expect(res.status).toBe(201);
  matterId = res.body.matter.id;
});
afterAll(async () => {
  await app.close();
});

describe('malformed and oversized bodies', () => {
  it('answers malformed JSON with 400 JSON', async () => {
    await refusedWithoutWrite(400, () => raw('POST', `${ws}/matters`, '{"matterType": "patent_provisional",'));
    await refusedWithoutWrite(400, () => raw('POST', `${ws}/matters/${matterId}/advance`, "{note: 'single quotes are not JSON'}"));
    await refusedWithoutWrite(400, () => raw('POST', `${ws}/matters/${matterId}/consent`, '{"actor":"client","scope":"all"}}'));
  });

  it('answers a body over the limit with 413 JSON', async () => {
    const huge = JSON.stringify({ matterType: 'patent_provisional', offer: 'x'.repeat(DEFAULT_BODY_LIMIT + 1024) });
    await refusedWithoutWrite(413, () => raw('POST', `${ws}/matters`, huge));
    await refusedWithoutWrite(413, () => raw('POST', `${ws}/matters/${matterId}/advance`, JSON.stringify({ note: 'y'.repeat(DEFAULT_BODY_LIMIT) })));
  });

  it('answers a body that is not JSON at all with a 4xx JSON refusal', async () => {
    const xml = await refusedWithoutWrite(415, () => raw('POST', `${ws}/matters`, '<matter type="patent_provisional"/>', { 'content-type': 'application/xml' }));
    expect(xml.error).toMatch(/JSON/);
    // Plain text is parsed as a string, which is not the object the door needs.
    await refusedWithoutWrite(422, () => raw('POST', `${ws}/matters/${matterId}/advance`, 'advance please', { 'content-type': 'text/plain' }), /object/);
  });
});

describe('unknown routes', () => {
  it('answers 404 JSON naming the route', async () => {
    for (const [method, url] of [
      ['GET', '/no-such-thing'],
      ['POST', `${ws}/matters/${matterId}/frobnicate`],
    ] as const) {
      const body = await refusedWithoutWrite(404, () => raw(method, url, '{}'));
      expect(body.error).toContain(url.split('?')[0]);
      expect(body.code).toBe('ROUTE_NOT_FOUND');
    }
  });

  it('answers 405 with Allow when the path is served under other methods, writing nothing', async () => {
    for (const [method, url, allow] of [
      ['DELETE', `${ws}/matters/${matterId}`, 'GET, HEAD'],
      ['PUT', `${ws}/matters/${matterId}/advance`, 'POST'],
      ['PATCH', '/matters', 'GET, HEAD, POST'],
    ] as const) {
      const res = await app.inject({ method, url, payload: '{}', headers: { 'content-type': 'application/json' } });
      expect(res.statusCode, `${method} ${url}`).toBe(405);
      expect(res.headers.allow).toBe(allow);
      expect(res.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED', allowed: allow.split(', ') });
      expect(res.json().error).toContain(url);
      await refusedWithoutWrite(405, () => raw(method, url, '{}'));
    }
  });
});

describe('wrong types are never coerced', () => {
  it('refuses the string "true" where a boolean is required, and the Matter stays open', async () => {
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/matters/${matterId}/terminal`, { outcome: 'withdrawn', byClient: 'true' }), /byClient/);
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/matters/${matterId}/terminal`, { outcome: 'lapsed', confirmedUnresponsiveTwice: 1 }), /confirmedUnresponsiveTwice/);
    const m = await call(app, 'GET', `${ws}/matters/${matterId}`);
    expect(m.body.matter.status).toBe('intake');
  });

  it('refuses the string "5" where a number is required', async () => {
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', listFeeUsd: '5' }), /listFeeUsd/);
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/orders`, { mint: 'm', offer: 'o', title: 't', inventor: 'i', listFeeUsd: '199' }), /listFeeUsd/);
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/matters/${matterId}/advance`, { merits: { settlementUsd: '5000' } }), /settlementUsd/);
  });

  it('refuses numbers, arrays and null where text is required', async () => {
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/matters/${matterId}/consent`, { actor: 'client', scope: 5 }), /scope/);
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/matters/${matterId}/client-direction`, { instruction: ['go'] }), /instruction/);
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/matters/${matterId}/documents`, { name: null, kind: 'memo', sha256: 'a'.repeat(64) }), /name/);
  });

  it('refuses a body that is JSON but not an object', async () => {
    for (const payload of ['[]', '"advance"', '42', 'true']) {
      await refusedWithoutWrite(422, () => raw('POST', `${ws}/matters/${matterId}/consent`, payload));
    }
  });
});

describe('missing fields', () => {
  it('names the missing field', async () => {
    await refusedWithoutWrite(400, () => call(app, 'POST', `${ws}/matters`, {}), /matterType/);
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/matters/${matterId}/consent`, { actor: 'client' }), /scope/);
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/matters/${matterId}/gig-result`, { gigId: 'gig_x' }), /outcome/);
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/matters/${matterId}/documents`, { name: 'memo', kind: 'memo' }), /sha256/);
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/matters/${matterId}/terminal`, {}), /outcome/);
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/orders`, { mint: 'm', offer: 'o', title: 't', listFeeUsd: 199 }), /inventor/);
  });
});

describe('unknown enum values', () => {
  it('refuses them and lists what is allowed', async () => {
    await refusedWithoutWrite(400, () => call(app, 'POST', `${ws}/matters`, { matterType: 'patent_design' }), /patent_provisional/);
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', consumerPattern: 'B2B' }), /B2A/);
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', rail: 'maritime' }), /patent/);
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/matters/${matterId}/terminal`, { outcome: 'abandoned' }), /withdrawn/);
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/matters/${matterId}/gig-result`, { gigId: 'gig_x', outcome: 'maybe' }), /attested/);
  });
});

describe('unknown fields', () => {
  it('refuses them by name instead of dropping them', async () => {
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', colour: 'red' }), /colour/);
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/matters/${matterId}/advance`, { note: 'go', force: true }), /force/);
    await refusedWithoutWrite(422, () => call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', client: { name: 'Ada', email: 'ada@example.com' } }), /email/);
  });
});

describe('prototype-pollution keys', () => {
  const poisoned: Array<[string, string]> = [
    ['/matters', '{"matterType":"patent_provisional","__proto__":{"polluted":true}}'],
    ['/matters', '{"matterType":"patent_provisional","constructor":{"prototype":{"polluted":true}}}'],
    ['/matters', '{"matterType":"patent_provisional","client":{"__proto__":{"polluted":true}}}'],
    ['/advance', '{"merits":{"__proto__":{"polluted":true}}}'],
    ['/advance', '{"merits":{"constructor":{"prototype":{"polluted":true}}}}'],
    ['/client-direction', '{"instruction":"go","authorizes":{"__proto__":{"isAdmin":true}}}'],
  ];
  it.each(poisoned)('refuses %s with %s', async (door, payload) => {
    const url = door === '/matters' ? `${ws}/matters` : `${ws}/matters/${matterId}${door}`;
    const before = await seqs();
    const res = await raw('POST', url, payload);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(typeof res.body?.error).toBe('string');
    expect(res.body.error.length).toBeGreaterThan(10);
    expect(await seqs()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });
});

describe('generated junk against every write door', () => {
  const FIELDS = ['matterType', 'consumerPattern', 'listFeeUsd', 'client', 'asset', 'rail', 'clientState', 'adverseParties', 'merits', 'note', 'actor', 'scope', 'gigId', 'outcome', 'attestation', 'memo', 'receipt', 'instruction', 'authorizes', 'byClient', 'confirmedUnresponsiveTwice', 'referredTo', 'name', 'kind', 'sha256', 'mint', 'offer', 'title', 'inventor', '__proto__', 'constructor', 'prototype', 'toString'];
  const DOORS = ['/matters', '/orders', '/advance', '/consent', '/gig-result', '/client-direction', '/terminal', '/documents'] as const;

  const junkBody = fc.oneof(
    // Any JSON value, as JSON.
    fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null'),
    // Objects keyed by the doors' own field names (and poisoned ones), with any JSON values.
    fc.dictionary(fc.constantFrom(...FIELDS), fc.jsonValue(), { maxKeys: 6 }).map((o) => JSON.stringify(o)),
    // The same, with a ratified matterType or a valid outcome so deeper checks are reached.
    fc
      .tuple(fc.dictionary(fc.constantFrom(...FIELDS), fc.jsonValue(), { maxKeys: 4 }), fc.constantFrom({ matterType: 'patent_provisional' }, { outcome: 'withdrawn' }, { actor: 'client' }, { instruction: 'go' }))
      .map(([o, base]) => JSON.stringify({ ...o, ...base })),
    // Poisoned keys written literally (JSON.stringify would drop a real __proto__).
    fc.tuple(fc.constantFrom('__proto__', 'constructor', 'prototype'), fc.jsonValue()).map(([k, v]) => `{"${k}":${JSON.stringify(v) ?? 'null'},"matterType":"patent_provisional"}`),
    // Text that is mostly not JSON.
    fc.string({ maxLength: 60 }),
  );
  const target = fc.constantFrom('own', 'own', 'own', 'unknown', 'junk');
  const surface = fc.constantFrom('workspace', 'workspace', 'top-level', 'top-level-keyless');
  const contentType = fc.constantFrom('application/json', 'application/json', 'application/json', 'text/plain', 'application/json; charset=utf-8');

  it('never answers 5xx, and a refusal never writes', async () => {
    const key = await topLevelHeaders(app);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...DOORS), junkBody, target, surface, contentType, async (door, payload, which, where, type) => {
        const prefix = where === 'workspace' ? ws : '';
        // A fresh Matter in intake each run, so junk that happens to be valid cannot close the door on later runs.
        const opened = await call(app, 'POST', `${prefix}/matters`, { matterType: 'patent_provisional' }, key);
        expect(opened.status).toBe(201);
        const own = opened.body.matter.id as string;
        const id = which === 'own' ? own : which === 'unknown' ? 'mt_0000000000000000000000000' : '..%2F..%2Fetc%2Fpasswd';
        const url = door === '/matters' || door === '/orders' ? `${prefix}${door}` : `${prefix}/matters/${id}${door}`;
        const headers = { 'content-type': type, ...(where === 'top-level' ? key : {}) };
        const before = await seqs();
        const res = await raw('POST', url, payload, headers);
        expect(res.status, `${url} ${payload} -> ${JSON.stringify(res.body)}`).toBeLessThan(500);
        if (res.status >= 400) {
          expect(typeof res.body?.error, `${url} ${payload}`).toBe('string');
          expect(await seqs(), `${url} ${payload} wrote on a ${res.status}`).toEqual(before);
        }
      }),
      { numRuns: 400 },
    );
  });
});
