/**
 * The pages for people, in a real headless browser (Debian's chromium driven
 * by playwright-core) against a real listening service: /docs loads without a
 * console error and shows the generated diagrams; on /sandbox a walk-through
 * clicked in the page reaches `fulfilled`. Without chromium this test fails:
 * `.ci/run` installs it.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listDiagrams } from '../src/web/diagrams.ts';
import { listeningApp, type TestApp } from './helpers/app.ts';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let app: TestApp;
let url: string;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); .ci/run does it`);
  ({ app, url } = await listeningApp());
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** A page that records every console error and uncaught exception. */
async function open(path: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`request: ${r.url()} ${r.failure()?.errorText}`));
  const res = await page.goto(`${url}${path}`, { waitUntil: 'load' });
  expect(res?.status()).toBe(200);
  return { page, errors };
}

/** Clicks a button of the sandbox and waits until the page is idle again. */
async function click(page: Page, id: string) {
  await page.click(`#${id}:not([disabled])`);
  await page.waitForSelector('body[data-busy="false"]');
}

describe('/docs in a browser', () => {
  it('loads without console errors and shows every generated diagram', async () => {
    const { page, errors } = await open('/docs');
    const generated = (await listDiagrams()).filter((d) => d.available);
    expect(generated.map((d) => d.name)).toEqual(expect.arrayContaining(['matter']));
    for (const d of generated) {
      const img = page.locator(`#diagram-${d.name} img`);
      await img.scrollIntoViewIfNeeded();
      expect(await img.isVisible(), d.name).toBe(true);
      // Decoded and drawn: an SVG that failed to load has no natural size.
      const width = await img.evaluate(async (el: HTMLImageElement) => {
        await el.decode();
        return el.naturalWidth;
      });
      expect(width, d.name).toBeGreaterThan(0);
    }
    expect(await page.locator('#walk-through + p + pre').textContent()).toContain('/advance');
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('/sandbox in a browser', () => {
  it('walks a Matter of the fulfilling fixture Client to fulfilled, by clicking', async () => {
    const { page, errors } = await open('/sandbox');
    await page.waitForSelector('body[data-ready="true"]');
    await click(page, 'open-workspace');
    expect(await page.textContent('#workspace-id')).toMatch(/^ws_/);
    expect(await page.locator('#fixtures tr').count()).toBe(8);
    await click(page, 'open-matter');
    expect(await page.textContent('#status')).toBe('intake');
    const seen: string[] = [];
    for (let i = 0; i < 10 && (await page.textContent('#status')) !== 'fulfilled'; i++) {
      await click(page, 'advance');
      seen.push((await page.textContent('#status'))!);
    }
    expect(seen).toEqual(['prepare', 'examine', 'review', 'sign', 'fulfilled']);
    expect(await page.isVisible('#settlement-card')).toBe(true);
    expect(JSON.parse((await page.textContent('#settlement'))!)).toMatchObject({ rail: 'patent', attestedActs: 2 });
    expect(await page.isDisabled('#advance')).toBe(true);
    expect(await page.locator('#journal tr').count()).toBeGreaterThan(5);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('lets a person answer each Gig as the eligible Signer, to fulfilled', async () => {
    const { page, errors } = await open('/sandbox');
    await page.waitForSelector('body[data-ready="true"]');
    await click(page, 'open-workspace');
    await page.selectOption('#client', 'Ada Inventor');
    await page.selectOption('#matter-type', 'trademark_office_action');
    await click(page, 'open-matter');
    for (let i = 0; i < 4; i++) await click(page, 'advance');
    expect(await page.textContent('#status')).toBe('waiting_on_signer');
    expect(await page.isDisabled('#advance')).toBe(true);
    await click(page, 'attest');
    expect(await page.textContent('#status')).toBe('sign');
    await click(page, 'advance');
    expect(await page.textContent('#status')).toBe('waiting_on_signer');
    await click(page, 'attest');
    expect(await page.textContent('#status')).toBe('fulfilled');
    expect(errors).toEqual([]);
    await page.close();
  });
});
