/** Discovery documents: each derived from what it describes, typed, and consistent with the others. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_TIERS } from '../src/domain/access.ts';
import { CAPABILITIES } from '../src/domain/capabilities/catalog.ts';
import { MATTER_TYPES } from '../src/domain/matter-types.ts';
import { POSTED_PRICES } from '../src/domain/pricing.ts';
import { SPEC_TOOLS } from '../src/mcp/tool-names.ts';
import { SUITE_PIN, suiteDocument } from '../src/verify/suite.ts';
import { call, testApp, topLevelHeaders, type TestApp } from './helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await testApp();
});
afterAll(async () => app.close());

describe('/healthz', () => {
  it('answers typed liveness, reading the journal', async () => {
    const res = await call(app, 'GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ type: 'OK', status: 'live', service: 'legalwork', version: '0.3.0', journal: { reachable: true } });
    // It counts nobody's records: a key's writes leave it as it was.
    await call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, await topLevelHeaders(app));
    expect((await call(app, 'GET', '/healthz')).body.journal).toEqual({ reachable: true });
  });
});

describe('/pricing', () => {
  it('posts the flat prices from the one price table', async () => {
    const { status, body } = await call(app, 'GET', '/pricing');
    expect(status).toBe(200);
    expect(body).toMatchObject({ type: 'OK', $type: 'PricingDocument', currency: 'USD', model: 'free', feeShape: 'flat', hourly: false, percentOfOutcome: false, postedPrices: { provisionalFilingUsd: 199, utilityFilingUsd: 799 } });
    expect(body.matterTypes.map((m: { matterType: string }) => m.matterType)).toEqual([...MATTER_TYPES]);
    for (const m of body.matterTypes) expect(m.productFeeUsd).toBe(POSTED_PRICES[m.matterType as keyof typeof POSTED_PRICES].productFeeUsd);
    const acts = CAPABILITIES.filter((c) => c.effect === 'act');
    expect(body.acts).toHaveLength(acts.length);
    expect(body.spendCeiling).toMatchObject({ hard: true, setBy: 'the caller' });
  });
});

describe('/icp.json', () => {
  it('lists the agent classes and the tier ladder in ascending order', async () => {
    const { body } = await call(app, 'GET', '/icp.json');
    expect(body.agentClasses.map((a: { consumerPattern: string }) => a.consumerPattern)).toEqual(['B2A', 'B2H2A', 'B2A2D']);
    expect(body.accessTiers.map((t: { tier: string }) => t.tier)).toEqual([...ACCESS_TIERS]);
    expect(body.accessTiers.map((t: { live: boolean }) => t.live)).toEqual([true, true, false, false]);
  });
});

describe('/.well-known/agents.json', () => {
  it('is the capability card: every served route, the MCP command, the tiers, the suite probes', async () => {
    const { body } = await call(app, 'GET', '/.well-known/agents.json', undefined, { host: 'legal.example:8080' });
    expect(body.url).toBe('http://legal.example:8080');
    const openapi = (await call(app, 'GET', '/openapi.json')).body;
    const documented = Object.entries(openapi.paths as Record<string, object>).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    expect(body.http.routes.map((r: { method: string; path: string }) => `${r.method} ${r.path}`).sort()).toEqual(documented.sort());
    expect(body.mcp).toMatchObject({ command: 'npx', args: ['-y', 'legalwork', 'mcp', 'serve'], transport: 'stdio' });
    expect(body.mcp.tools).toEqual([...SPEC_TOOLS]);
    expect(body.tiers.map((t: { tier: string }) => t.tier)).toEqual([...ACCESS_TIERS]);
    expect(body.probes).toEqual(suiteDocument().requirements.map((r) => ({ id: r.id, method: r.method, path: r.path, status: r.status })));
    expect(body.contract).toMatchObject({ openapiVersion: '3.1.0', version: '0.3.0', suiteId: 'legalwork-contract@1', pin: SUITE_PIN });
    expect(body.webhooks.events).toContain('outcome.filed');
    expect(body.webhooks.events.sort()).toEqual(Object.keys(openapi.webhooks).sort());
    expect(body.webhooks.register).toMatch(/^POST \/webhooks/);
    expect(body.capabilities).toHaveLength(CAPABILITIES.length);
  });

  it('is served in the A2A AgentCard shape too', async () => {
    const { status, body } = await call(app, 'GET', '/.well-known/agent-card.json');
    expect(status).toBe(200);
    for (const field of ['protocolVersion', 'name', 'description', 'url', 'version', 'capabilities', 'defaultInputModes', 'defaultOutputModes', 'skills']) expect(body).toHaveProperty(field);
    expect(body.version).toBe('0.3.0');
    for (const skill of body.skills) {
      expect(skill).toEqual(expect.objectContaining({ id: expect.any(String), name: expect.any(String), description: expect.any(String), tags: expect.any(Array) }));
    }
    expect(new Set(body.skills.map((s: { id: string }) => s.id)).size).toBe(body.skills.length);
    expect(body.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});

describe('/llms.txt', () => {
  it('follows the llms.txt convention: H1, blockquote summary, H2 sections of links', async () => {
    const res = await call(app, 'GET', '/llms.txt');
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const lines = res.raw.split('\n');
    expect(lines[0]).toBe('# legalwork');
    expect(lines[2]).toMatch(/^> /);
    expect(lines.filter((l) => l.startsWith('## '))).toEqual(['## Retries and races', '## Contract', '## Docs', '## Optional']);
    expect(res.raw).toMatch(/Idempotency-Key: <a fresh UUID>/);
    expect(res.raw).toMatch(/If-Match/);
    for (const link of lines.filter((l) => l.startsWith('- ['))) expect(link).toMatch(/^- \[[^\]]+\]\(http:\/\/[^)]+\)(: .+)?$/);
    expect(res.raw).toContain(SUITE_PIN);
  });
});

describe('/catalog', () => {
  it('is a typed EMPTY with zero SKUs, the meter promise and the SKU declaration contract', async () => {
    const { status, body } = await call(app, 'GET', '/catalog');
    expect(status).toBe(200);
    expect(body).toMatchObject({ type: 'EMPTY', skus: [], results: [] });
    expect(body.message).toMatch(/no SKU/);
    expect(body.meterPromise.promise).toMatch(/no record, no charge/);
    expect(body.skuContract.fields.map((f: { name: string }) => f.name)).toEqual(['name', 'whatYouGet', 'priceUsd', 'gate', 'feeLine', 'merchantOfRecord', 'meterGrain', 'proofPredicate']);
  });
});
