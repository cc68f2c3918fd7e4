/**
 * What the browser tests of the diagram pages share (the population page, the
 * coverage views): Debian's chromium driven by playwright-core, a page opened
 * in a context of its own with its console errors and any request that leaves
 * the service recorded, axe-core's serious and critical violations, and where
 * screenshots go (docs/ with LEGALWORK_DOCS_SCREENSHOTS=1, else a temp
 * directory, so an ordinary run leaves the tree as it was).
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { PACKAGE_ROOT } from '../../src/paths.ts';

export const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const WIDE = { width: 1280, height: 800 };
export const NARROW = { width: 390, height: 844 };
/** A hang guard for what a page does after a load, a click or a key (fetches and a redraw on loopback), not a speed bound. */
export const HANG_MS = 15_000;

export const SHOTS = process.env.LEGALWORK_DOCS_SCREENSHOTS === '1' ? join(PACKAGE_ROOT, 'docs') : mkdtempSync(join(tmpdir(), 'legalwork-page-shots-'));

export async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); .ci/run does it`);
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
}

export interface Opened {
  page: Page;
  errors: string[];
  /** Every request the page made that did not go to the service. */
  foreign: string[];
}

/** Opens `url` in a context of its own (closed with its page), waits for `ready`, and records console errors and requests elsewhere. */
export async function openPage(browser: Browser, base: string, path: string, ready: string, viewport = WIDE): Promise<Opened> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.on('close', () => void context.close().catch(() => undefined));
  const errors: string[] = [];
  const foreign: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page: ${e.message}`));
  page.on('request', (r) => {
    if (!r.url().startsWith(base) && !r.url().startsWith('data:')) foreign.push(r.url());
  });
  const res = await page.goto(`${base}${path}`, { waitUntil: 'load' });
  expect(res?.status(), path).toBe(200);
  await page.waitForSelector(ready, { timeout: HANG_MS });
  return { page, errors, foreign };
}

/** No serious or critical axe-core violation on the page as it stands. */
export async function expectAccessible(page: Page, what: string) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`);
  expect(bad, what).toEqual([]);
}

/** On a narrow screen: the elements wider than the screen, outside the diagram's own scrolling box. */
export async function widerThanScreen(page: Page, box = '.diagram'): Promise<string[]> {
  return page.evaluate((sel) => [...document.querySelectorAll('body *')].filter((e) => !e.closest(sel) && e.getBoundingClientRect().right > window.innerWidth + 1).map((e) => `${e.tagName.toLowerCase()}#${e.id} ${e.textContent?.slice(0, 40)}`), box);
}
