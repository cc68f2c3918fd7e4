/**
 * Refusals that teach (issue 19, item 5): every code of the refusal catalog
 * carries a `fix` an agent can act on, and a schema refusal (422
 * INVALID_REQUEST, through `src/http/validation.ts`) names the field, the
 * rule it broke and a fix, through the real HTTP server.
 *
 * The rule a fix is held to (`actionable`), checkable without reading it:
 * - it names at least one thing an agent can act on: a door of the service
 *   (`POST /keys`, `/openapi.json`), a header (`Idempotency-Key`), a field
 *   (`"memo"`, `spendCeilingUsd`, or a field of the answer in backticks such
 *   as `accepted`), an accepted form or value (`"individual"`,
 *   `<64 hex>`, `256 KiB`), or, for what only the operator can mend, the
 *   setting or command (`LEGALWORK_SUPPLY_SECRET`, `npm run diagrams`);
 * - it does not open with a generic "retry", "try again" or "check": it leads
 *   with the act itself;
 * - it is not the wording again: the fix says what to do, not what went wrong.
 */
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { REFUSALS } from '../src/domain/refusals.ts';
import { call, testApp, topLevelHeaders, workspace, type TestApp } from './helpers/app.ts';

/** The headers a fix may name: those the service reads or answers. */
const HEADERS = [
  'Authorization', 'Idempotency-Key', 'If-Match', 'ETag', 'X-Actor', 'X-Mandate', 'Content-Type', 'Content-Length', 'Retry-After', 'Last-Event-ID',
  'Allow', 'Host', 'RateLimit-Policy', 'RateLimit', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'request-id',
];

/** What a fix can name that an agent acts on, by kind. */
const ANCHORS: Record<string, RegExp> = {
  door: /(?:^|[\s("'`])\/[a-z{][\w.{}/?=&…-]*/i,
  header: new RegExp(`(?<![\\w-])(?:${HEADERS.join('|')})(?![\\w-])`, 'i'),
  field: /"[A-Za-z][\w.[\]-]*"|`[A-Za-z][\w.]*`|\b[a-z]+(?:[A-Z][a-z0-9]*)+\b/,
  value: /<[^>]+>|"[^"]+"|\b\d+\s*(?:KiB|characters|seconds|days|USD|levels)\b/,
  operator: /\bLEGALWORK_[A-Z_]+\b|\bnpm run [\w:]+/,
};

const GENERIC = /^\s*(?:please\s+)?(?:retry|try again|check)\b/i;

/** Why `fix` is not actionable, or null when it is. */
export function notActionable(fix: unknown, says?: string): string | null {
  if (typeof fix !== 'string' || fix.trim().length < 8) return `no fix worth the name: ${JSON.stringify(fix)}`;
  if (GENERIC.test(fix)) return `opens with a generic "retry/try again/check": ${JSON.stringify(fix)}`;
  if (says !== undefined && fix.trim() === says.trim()) return 'repeats the wording instead of saying what to do';
  const named = Object.entries(ANCHORS).filter(([, re]) => re.test(fix)).map(([kind]) => kind);
  return named.length ? null : `names no door, header, field, accepted value or operator setting: ${JSON.stringify(fix)}`;
}

describe('the rule a fix is held to', () => {
  it('passes fixes that name what to do, and fails the generic ones', () => {
    for (const good of ['POST /keys', 'send Idempotency-Key: <a UUID>', 'send the defects as "memo"', 'issue a key with a higher spendCeilingUsd', 'set LEGALWORK_SUPPLY_SECRET', 'send a smaller body (at most 256 KiB)']) {
      expect(notActionable(good), good).toBeNull();
    }
    for (const bad of ['', 'retry', 'try again later', 'check the serial', 'fix the request and send it again', 'wait a while, then act', 'retry; if it persists, report it to POST /support']) {
      expect(notActionable(bad), bad).not.toBeNull();
    }
  });
});

describe('every code of the refusal catalog', () => {
  const entries = Object.entries(REFUSALS);

  it('is walked whole', () => {
    expect(entries.length).toBeGreaterThan(60);
  });

  it.each(entries.map(([code, entry]) => [code, entry] as const))('%s carries a fix an agent can act on', (code, entry) => {
    expect(typeof entry.fix, code).toBe('string');
    expect(notActionable(entry.fix), code).toBeNull();
  });
});

describe('schema refusals through the real server name the field, the rule and a fix', () => {
  let app: TestApp;
  let ws: string;
  let matterId: string;

  beforeAll(async () => {
    app = await testApp();
    ws = await workspace(app);
    const made = await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional' });
    expect(made.status).toBe(201);
    matterId = made.body.matter.id;
  });
  afterAll(async () => {
    await app.close();
  });

  /** A 422 INVALID_REQUEST whose `field` is `field`, whose error names it, and whose fix is actionable and matches `fix`. */
  async function refusedNaming(res: { status: number; body: any }, field: string, fix: RegExp) {
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.code).toBe('INVALID_REQUEST');
    expect(res.body.rule).toBe('schema');
    expect(res.body.field).toBe(field);
    expect(res.body.error).toContain(field);
    expect(notActionable(res.body.fix, res.body.error), JSON.stringify(res.body)).toBeNull();
    expect(res.body.fix).toMatch(fix);
    return res.body;
  }

  it('a missing required field: names it, and says to send it', async () => {
    const body = await refusedNaming(await call(app, 'POST', `${ws}/matters/${matterId}/terminal`, {}), 'body.outcome', /"body\.outcome"/);
    expect(body.error).toMatch(/required/);
  });

  it('a value off the enum: names the field and lists the accepted values', async () => {
    const body = await refusedNaming(await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', consumerPattern: 'B2B' }), 'body.consumerPattern', /"B2A"/);
    expect(body.accepted).toEqual(expect.arrayContaining(['B2A', 'B2H2A', 'B2A2D']));
  });

  it('a wrong type: names the field and the JSON type to send', async () => {
    await refusedNaming(await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', listFeeUsd: '199' }), 'body.listFeeUsd', /number/);
  });

  it('an unknown field: names it and the fields the body takes', async () => {
    const body = await refusedNaming(await call(app, 'POST', `${ws}/matters/${matterId}/advance`, { nite: 'typo' }), 'body.nite', /"note"/);
    expect(body.error).toMatch(/unknown field/);
  });

  it('a pattern: names the field and the form it must take', async () => {
    const body = await refusedNaming(await call(app, 'POST', '/keys', { email: 'not-an-email' }), 'body.email', /email|@/);
    expect(body.error).toMatch(/pattern/);
  });

  it('a query parameter out of range: names it and the bound', async () => {
    await refusedNaming(await call(app, 'GET', `${ws}/events?limit=100000`), 'querystring.limit', /500/);
  });

  it('the same on the top level, with a key', async () => {
    const headers = await topLevelHeaders(app);
    await refusedNaming(await call(app, 'POST', '/matters', { matterType: 'patent_provisional', listFeeUsd: -5 }, headers), 'body.listFeeUsd', /0/);
  });
});
