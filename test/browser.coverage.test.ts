/**
 * Coverage and machine changes, drawn (issue 36, items 2 and 3), in a real
 * headless browser against a real listening service: the inspector's "Model
 * coverage" and the /docs page draw each machine's
 * `visualizations/<machine>.coverage.json` on its diagram, every walked
 * transition with its number of paths and an unwalked one apart (a coverage
 * with one transition unwalked is served to the page to see it); and the
 * drawing of a machine change (`<machine>.diff.svg`) renders with its marks.
 *
 * The screenshots in docs/inspector.md are taken here (LEGALWORK_DOCS_SCREENSHOTS=1).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitOf, readMachinesIn } from '../src/diagrams/at-ref.ts';
import { readCoverageFile, type CoverageFile } from '../src/diagrams/coverage.ts';
import { TRANSITION_TOKEN } from '../src/diagrams/names.ts';
import { MACHINES } from '../src/diagrams/registry.ts';
import { diffSvg, review } from '../src/diagrams/review.ts';
import { PACKAGE_ROOT } from '../src/paths.ts';
import { listeningApp, type TestApp } from './helpers/app.ts';
import { expectAccessible, HANG_MS, launch, openPage, SHOTS } from './helpers/pages.ts';

let app: TestApp;
let url: string;
let browser: Browser;
const matterCoverage = readCoverageFile('matter')!;

async function ok(method: string, path: string, body?: unknown) {
  const res = await app.inject({ method: method as never, url: path, ...(body !== undefined ? { payload: body as never } : {}) });
  expect(res.statusCode, `${method} ${path}: ${res.body}`).toBeLessThan(300);
  return res.json() as any;
}

/** What a coverage drawing shows, per transition: its element's marks and the words after its label line. */
async function coverageDrawn(page: Page, scope: string) {
  return page.evaluate(
    ([sel, token]) => {
      const out: Record<string, { walked: boolean; unwalked: boolean; cue: string | null; after: string | null }> = {};
      for (const g of document.querySelectorAll(`${sel} g.transition`)) {
        const tokens = [...g.classList].filter((c) => c.startsWith(token));
        const texts = [...g.querySelectorAll(':scope > text')];
        tokens.forEach((t, i) => {
          const lines = tokens.length > 1 ? [texts[i]] : texts;
          out[decodeURIComponent(t.slice(token.length))] = {
            walked: g.classList.contains('is-walked'),
            unwalked: g.classList.contains('is-unwalked'),
            cue: lines[0]?.querySelector('tspan.cue:not(.after)')?.textContent?.trim() ?? null,
            after: lines[lines.length - 1]?.querySelector('tspan.after')?.textContent?.trim() ?? null,
          };
        });
      }
      return out;
    },
    [scope, TRANSITION_TOKEN] as const,
  );
}

/** Every transition of the file drawn as the file says: walked with its count of paths, or apart as unwalked. */
function expectCoverageDrawn(drawn: Awaited<ReturnType<typeof coverageDrawn>>, file: CoverageFile) {
  expect(Object.keys(drawn).sort()).toEqual(file.transitions.map((t) => t.key).sort());
  for (const t of file.transitions) {
    const d = drawn[t.key];
    if (t.paths > 0) expect(d, t.key).toMatchObject({ cue: null, after: `· ${t.paths} path${t.paths === 1 ? '' : 's'}` });
    else expect(d, t.key).toEqual({ walked: false, unwalked: true, cue: '⚠', after: '· unwalked' });
    if (t.paths > 0) expect(d.walked || d.unwalked, t.key).toBe(true);
  }
}

beforeAll(async () => {
  ({ app, url } = await listeningApp());
  browser = await launch();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('the model coverage, drawn', () => {
  it('the inspector draws the machine\'s coverage on demand, each transition with its paths, and back', async () => {
    const W = `/workspaces/${(await ok('POST', '/workspaces')).workspace.id}`;
    const m = (await ok('POST', `${W}/matters`, { matterType: 'patent_provisional', client: { name: 'Ada Inventor' }, asset: { title: 'Map' } })).matter;
    for (let i = 0; i < 4; i++) await ok('POST', `${W}/matters/${m.id}/advance`, {});
    const { page, errors } = await openPage(browser, url, `${W}/matters/${m.id}/inspect`, '#inspector[data-ready="true"]');
    expect(await page.isHidden('#legend-coverage')).toBe(true);
    await page.click('#coverage');
    await page.waitForSelector('#inspector[data-drawn="coverage"]', { timeout: HANG_MS });
    expect(await page.getAttribute('#coverage', 'aria-pressed')).toBe('true');
    expectCoverageDrawn(await coverageDrawn(page, '#diagram'), matterCoverage);
    const caption = await page.textContent('#diagram-caption');
    expect(caption).toContain(`${matterCoverage.walked} of ${matterCoverage.total} transitions walked by ${matterCoverage.paths.shortest + matterCoverage.paths.simple} model paths (${matterCoverage.refusing.walked} of ${matterCoverage.refusing.total} refusing edges)`);
    expect(await page.isVisible('#legend-coverage')).toBe(true);
    expect(await page.isHidden('#legend-inspection')).toBe(true);
    // No mark of the Matter while the coverage is drawn: it is the machine's, not this Matter's.
    expect(await page.locator('#diagram g.is-current, #diagram .badge.step').count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'inspector-coverage.png') });
    await expectAccessible(page, 'the inspector, coverage drawn');
    await page.keyboard.press('Tab'); // the toggle works from the keyboard too
    await page.focus('#coverage');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#inspector[data-drawn="inspection"]', { timeout: HANG_MS });
    expect(await page.locator('#diagram g.is-current').count()).toBe(1);
    expect(await page.locator('#diagram g.is-walked, #diagram g.is-unwalked').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('draws an unwalked transition apart, in line and in words, and names it', async () => {
    // The page as served, but with a coverage in which no path walks one transition: the one case the committed files never show.
    const key = 'open.review ESCALATE -> open.waiting_on_signer';
    const lacking: CoverageFile = { ...matterCoverage, walked: matterCoverage.walked - 1, transitions: matterCoverage.transitions.map((t) => (t.key === key ? { ...t, paths: 0, shortest: 0, simple: 0 } : t)) };
    const W = `/workspaces/${(await ok('POST', '/workspaces')).workspace.id}`;
    const m = (await ok('POST', `${W}/matters`, { matterType: 'patent_provisional', client: { name: 'Ada Inventor' }, asset: { title: 'Map' } })).matter;
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.route(`${url}${W}/matters/${m.id}/inspect`, async (route) => {
      const served = await route.fetch();
      const html = (await served.text()).replace(/data-coverage="[^"]*"/, `data-coverage="${JSON.stringify(lacking).replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`);
      await route.fulfill({ response: served, body: html });
    });
    await page.goto(`${url}${W}/matters/${m.id}/inspect`);
    await page.waitForSelector('#inspector[data-ready="true"]', { timeout: HANG_MS });
    await page.click('#coverage');
    await page.waitForSelector('#inspector[data-drawn="coverage"]', { timeout: HANG_MS });
    const drawn = await coverageDrawn(page, '#diagram');
    expectCoverageDrawn(drawn, lacking);
    expect(Object.entries(drawn).filter(([, d]) => d.unwalked).map(([k]) => k)).toEqual([key]);
    expect(await page.textContent('#diagram-caption')).toContain(`unwalked: ${key}`);
    // Drawn apart by line, not colour alone: a thick dotted stroke.
    const stroke = await page.evaluate((token) => {
      const path = document.querySelector(`#diagram g.is-unwalked.${CSS.escape(token)} > path`)!;
      const style = getComputedStyle(path);
      return { dash: style.strokeDasharray, width: parseFloat(style.strokeWidth) };
    }, `${TRANSITION_TOKEN}${encodeURIComponent(key)}`);
    expect(stroke.dash).not.toBe('none');
    expect(stroke.width).toBeGreaterThanOrEqual(3);
    await context.close();
  });

  it('/docs draws every machine\'s coverage on its diagram and says it in words', async () => {
    const { page, errors } = await openPage(browser, url, '/docs', 'body[data-coverage-drawn="true"]');
    for (const { name, title } of MACHINES) {
      const file = readCoverageFile(name)!;
      expect(await page.getAttribute(`#coverage-${name}`, 'data-drawn'), name).toBe('true');
      expectCoverageDrawn(await coverageDrawn(page, `#coverage-${name}`), file);
      expect(await page.textContent(`#coverage-caption-${name}`)).toBe(`${title}: ${file.walked} of ${file.total} transitions walked by ${file.paths.shortest + file.paths.simple} model paths (${file.refusing.walked} of ${file.refusing.total} refusing edges); none unwalked.`);
    }
    await page.locator('#coverage-matter').screenshot({ path: join(SHOTS, 'docs-coverage.png') });
    await expectAccessible(page, '/docs with the coverage drawn');
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('a machine change, drawn', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'legalwork-diff-shot-'));
    cpSync(join(PACKAGE_ROOT, 'machines'), join(dir, 'machines'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
    symlinkSync(join(PACKAGE_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('renders <machine>.diff.svg with the added, removed and changed elements marked and a legend', async () => {
    // The example, and a removed refusing edge: what a reviewer would meet.
    const file = join(dir, 'machines/matter.ts');
    const text = readFileSync(file, 'utf8')
      .replace("review: { on: { ESCALATE: { target: 'waiting_on_signer', actions: { type: 'escalate', params: { reservedAct: 'sign' } } } } },", "review: { on: { ESCALATE: { target: 'waiting_on_signer', actions: { type: 'escalate', params: { reservedAct: 'sign' } } }, CLIENT_DIRECTION: { target: 'prepare', actions: 'reopen' } } },")
      .replace("intake: { on: { ADVANCE: { guard: 'consentSatisfied', target: 'prepare',", "intake: { on: { ADVANCE: { target: 'prepare',")
      .replace('            LAPSE: {},\n', '');
    writeFileSync(file, text);
    const sources = MACHINES.map((m) => ({ source: m.source, id: m.machine.id }));
    const [before, after] = [readMachinesIn(PACKAGE_ROOT, sources), readMachinesIn(dir, sources)];
    const reviewed = review(
      MACHINES.map((m, i) => {
        const read = after[i];
        if (read.status !== 'read') throw new Error(`${m.source}: ${JSON.stringify(read)}`);
        return { name: m.name, title: m.title, source: m.source, now: read.model, coverage: readCoverageFile(m.name) };
      }),
      before,
    );
    const diff = reviewed.find((r) => r.name === 'matter')!.diff!;
    expect(diff.changes.map((c) => c.mark).sort()).toEqual(['added', 'changed', 'removed']);
    const svg = await diffSvg(diff, { ref: 'this checkout', commit: commitOf(PACKAGE_ROOT, 'HEAD') ?? 'HEAD' });
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    await page.setContent(`<!doctype html><body style="margin:0;background:#fff">${svg.replace(/^<\?xml[^>]*>\s*(<!DOCTYPE[^>]*>)?/, '')}</body>`);
    for (const mark of ['added', 'removed', 'changed']) expect(await page.locator(`svg g.diff-${mark}`).count(), mark).toBeGreaterThan(0);
    expect(await page.locator('svg g#legend').isVisible()).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'machine-diff.png'), fullPage: true });
    await page.close();
  }, 60_000);
});
