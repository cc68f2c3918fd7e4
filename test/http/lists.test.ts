/**
 * Every list pages (issue 19): more Assets than the largest page, walked by
 * `after`/`nextAfter`, arrive whole and once each, never silently cut.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, testApp, workspace, type TestApp } from '../helpers/app.ts';

const MATTERS = 520;
let app: TestApp;
let ws: string;
const assetIds = new Set<string>();

beforeAll(async () => {
  app = await testApp();
  ws = await workspace(app);
  for (let i = 0; i < MATTERS; i += 40) {
    const made = await Promise.all(Array.from({ length: Math.min(40, MATTERS - i) }, () => call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional' })));
    for (const res of made) {
      expect(res.status).toBe(201);
      assetIds.add(res.body.matter.assetId);
    }
  }
}, 120_000);
afterAll(() => app.close());

/** Walks a list door page by page; answers every id and the sizes of the pages. */
async function walk(path: string, limit?: number) {
  const ids: string[] = [];
  const sizes: number[] = [];
  let after: number | null = 0;
  while (after !== null) {
    const res = await call(app, 'GET', `${ws}${path}?after=${after}${limit ? `&limit=${limit}` : ''}`);
    expect(res.status).toBe(200);
    if (res.body.type === 'EMPTY') {
      expect(res.body.nextAfter ?? null).toBeNull();
      break;
    }
    ids.push(...res.body.results.map((r: { id: string }) => r.id));
    sizes.push(res.body.results.length);
    after = res.body.nextAfter ?? null;
  }
  return { ids, sizes };
}

describe('lists page', () => {
  it('GET /assets pages 100 at a time by default, past 500, each Asset once', async () => {
    const { ids, sizes } = await walk('/assets');
    expect(sizes).toEqual([100, 100, 100, 100, 100, 20]);
    expect(new Set(ids).size).toBe(MATTERS);
    expect(new Set(ids)).toEqual(assetIds);
  });

  it('GET /assets at the largest page still says where the rest is', async () => {
    const first = await call(app, 'GET', `${ws}/assets?limit=500`);
    expect(first.body.results).toHaveLength(500);
    expect(first.body.nextAfter).toEqual(expect.any(Number));
    const rest = await call(app, 'GET', `${ws}/assets?limit=500&after=${first.body.nextAfter}`);
    expect(rest.body.results).toHaveLength(MATTERS - 500);
    expect(rest.body.nextAfter).toBeNull();
    const { ids } = await walk('/assets', 7);
    expect(ids).toEqual([...first.body.results, ...rest.body.results].map((r: { id: string }) => r.id));
  });

  it('a page larger than 500 is refused with the bound, not cut', async () => {
    const res = await call(app, 'GET', `${ws}/assets?limit=501`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.error).toMatch(/limit/);
  });

  it('GET /matters pages the same Matters the Assets name', async () => {
    const { ids, sizes } = await walk('/matters', 250);
    expect(sizes).toEqual([250, 250, 20]);
    expect(new Set(ids).size).toBe(MATTERS);
  });
});
