/**
 * What the HTTP edge reports through the telemetry port (issue 45), in
 * process, with a sink that records what it is told: a request refused by the
 * rate limit counts as a rejection of its kind of caller and as a refusal by
 * its code; every answer is timed under its route template and status class;
 * a signed callback counts by its verdict. Nothing is labelled with the path's
 * ids.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installMetrics, type MetricsSink } from '../../src/lib/telemetry.ts';
import { testApp, type TestApp } from '../helpers/app.ts';

const counted: Array<{ name: string; labels?: Record<string, string>; value: number }> = [];
const observed: Array<{ name: string; labels?: Record<string, string>; value: number }> = [];
const recording: MetricsSink = {
  counter: (spec) => (labels, value) => void counted.push({ name: spec.name, labels, value }),
  histogram: (spec) => (value, labels) => void observed.push({ name: spec.name, labels, value }),
  gauge: () => undefined,
};
const total = (name: string, labels: Record<string, string>) =>
  counted.filter((c) => c.name === name && Object.entries(labels).every(([k, v]) => c.labels?.[k] === v)).reduce((n, c) => n + c.value, 0);

let app: TestApp;
beforeAll(async () => {
  // Installed before the app is built, as the service's start does: the edge's hook is added only where a sink records it.
  installMetrics(recording);
  app = await testApp({ rateLimit: { perSecond: 2 } });
});
afterAll(async () => app?.close());

describe('the HTTP edge through the telemetry port', () => {
  it('counts rate-limit rejections by kind of caller and refusals by code, and times each answer by its route template', async () => {
    const path = `/matters/mt_${'q'.repeat(24)}`;
    // Ten at once, from one address: a one-second window lets two through and refuses the rest (two windows, at worst, four).
    const statuses = (await Promise.all(Array.from({ length: 10 }, () => app.inject({ method: 'GET', url: path })))).map((answer) => answer.statusCode);
    const refused = statuses.filter((s) => s === 429).length;
    expect(refused).toBeGreaterThanOrEqual(6);
    expect(total('legalwork_rate_limit_rejections_total', { caller: 'address' })).toBe(refused);
    expect(total('legalwork_refusals_total', { code: 'RATE_LIMITED' })).toBe(refused);
    expect(total('legalwork_refusals_total', { code: 'MATTER_NOT_FOUND' })).toBe(10 - refused);
    const timed = observed.filter((o) => o.name === 'legalwork_http_request_duration_seconds');
    expect(timed).toHaveLength(10);
    expect(new Set(timed.map((o) => JSON.stringify(o.labels)))).toEqual(new Set([JSON.stringify({ route: '/matters/:id', method: 'GET', status_class: '4xx' })]));
    expect(JSON.stringify([...counted, ...observed])).not.toContain('qqqq');
  });

  it('counts the supply network\'s callbacks by verdict', async () => {
    await new Promise((window) => setTimeout(window, 1_100));
    // No LEGALWORK_SUPPLY_SECRET: the top-level callback door is not connected.
    const answer = await app.inject({ method: 'POST', url: `/matters/mt_${'r'.repeat(24)}/gig-result`, payload: { gigId: 'gig_x', outcome: 'declined', memo: 'no' } });
    expect(answer.statusCode).toBe(403);
    expect(total('legalwork_supply_callbacks_total', { verdict: 'not_connected' })).toBe(1);
  });
});
