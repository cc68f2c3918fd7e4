/**
 * Where Matters gather (issue 36, item 1), the page, in a real headless
 * browser against a real listening service on a deterministic clock
 * (`fixedClock`, what LEGALWORK_CLOCK=fixed:… starts): Matters are made over
 * HTTP in known states, and the page must count exactly them on the
 * machine's diagram (every state of the machine, zero where none is), count
 * every transition as the Matters' own inspections walked them, list exactly
 * a state's Matters oldest first when the state is clicked (or chosen by
 * keyboard), page them, give the oldest's age as the journal's instants say,
 * and open each one's inspector. The same for the ladders beside them, a
 * firm's Enrollments and a key's records at the top level; axe-core finds no
 * serious or critical violation at 1280×800 nor at 390×844.
 *
 * The screenshots in docs/inspector.md are taken here (LEGALWORK_DOCS_SCREENSHOTS=1).
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matterMachine } from '../machines/matter.ts';
import { deadlineLadderMachine } from '../machines/deadline-ladder.ts';
import { enrollmentMachine } from '../machines/enrollment.ts';
import { edgeIndex, pathOf, stateNodes } from '../machines/edges.ts';
import type { AnyStateMachine } from 'xstate';
import { stateId, TRANSITION_TOKEN } from '../src/diagrams/names.ts';
import { fixedClock, type Clock } from '../src/domain/clock.ts';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { MEMBERS_PAGE } from '../src/web/browser/population-view.ts';
import { listeningApp, type TestApp } from './helpers/app.ts';
import { expectAccessible, HANG_MS, launch, NARROW, openPage, SHOTS, WIDE, widerThanScreen } from './helpers/pages.ts';

/** The clock starts 3 h 25 min before the test: ages read in hours and minutes. */
const STARTED = new Date(Date.now() - (3 * 3600 + 25 * 60) * 1000).toISOString();
/**
 * Ages are counted to the service's clock (`Clock.now`): a fixed clock whose
 * reads are 3 h 25 min after its stamps, so every age reads 3 h 25 min
 * however long the test takes.
 */
const stamps = fixedClock(STARTED);
const CLOCK: Clock = { stamp: () => stamps.stamp(), now: () => new Date(Date.parse(stamps.now()) + (3 * 3600 + 25 * 60) * 1000).toISOString() };
const READY = '#population[data-ready="true"]';

let app: TestApp;
let url: string;
let browser: Browser;

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: method as never, url: path, ...(body !== undefined ? { payload: body as never } : {}), headers });
  return { status: res.statusCode, body: res.json() as any };
}
async function ok(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await api(method, path, body, headers);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

/** The states a record can stand in: the machine's atomic and final states. */
const standing = (machine: AnyStateMachine) => stateNodes(machine).filter((n) => n.type === 'atomic' || n.type === 'final').map(pathOf);

interface Made {
  id: string;
  assetId: string;
  base: string;
}

/** A sandbox Matter for `client` in grain `P`, advanced `advances` times. */
async function matter(P: string, client: string, advances: number, headers: Record<string, string> = {}): Promise<Made> {
  const opened = await ok('POST', `${P}/matters`, { matterType: 'patent_provisional', client: { name: client }, asset: { title: 'Self-folding map' } }, headers);
  const base = `${P}/matters/${opened.matter.id}`;
  for (let i = 0; i < advances; i++) await ok('POST', `${base}/advance`, {}, headers);
  return { id: opened.matter.id, assetId: opened.matter.assetId, base };
}

/** What the page drew: each state's count badge and age badge, and each transition's "×n", by name. */
async function drawn(page: Page) {
  return page.evaluate((token) => {
    const badges = (cls: string) => Object.fromEntries([...document.querySelectorAll(`#diagram .badge.${cls}`)].map((b) => [(b as SVGElement).dataset.for, b.textContent]));
    const counted: Record<string, string | null> = {};
    for (const g of document.querySelectorAll('#diagram g.transition')) {
      const tokens = [...g.classList].filter((c) => c.startsWith(token));
      const texts = [...g.querySelectorAll(':scope > text')];
      tokens.forEach((t, i) => {
        const line = tokens.length > 1 ? texts[i] : texts[texts.length - 1];
        counted[decodeURIComponent(t.slice(token.length))] = line?.querySelector('tspan.after')?.textContent?.trim() ?? null;
      });
    }
    return { counts: badges('count'), ages: badges('age'), counted, chosen: [...document.querySelectorAll('#diagram g.is-chosen')].map((g) => g.id) };
  }, TRANSITION_TOKEN);
}

/** The listed records, as the page lists them: ids and their inspector links. */
const listed = (page: Page) => page.$$eval('#members > li[data-id]', (items) => items.map((li) => ({ id: (li as HTMLElement).dataset.id!, href: li.querySelector('a')!.getAttribute('href') })));

/**
 * The page counts as made: every state of the machine has a badge with the
 * number of records in it; every transition says how many times the records'
 * own inspections walked it (nothing where none did).
 */
async function expectCounts(page: Page, machine: AnyStateMachine, states: Map<string, string[]>, walked: Map<string, number>) {
  const d = await drawn(page);
  for (const path of standing(machine)) expect(d.counts[stateId(path)], `the badge of ${path}`).toBe(String(states.get(path)?.length ?? 0));
  for (const key of edgeIndex(machine).keys) expect(d.counted[key], `the count of ${key}`).toBe(walked.get(key) ? `×${walked.get(key)}` : null);
  for (const path of standing(machine)) expect(await page.textContent(`#states tr[data-state="${path}"] td.num`), `the row of ${path}`).toBe(String(states.get(path)?.length ?? 0));
}

/** Each record's state and the transitions its journal walked, from its own inspection. */
async function byInspection(doors: string[]) {
  const states = new Map<string, string[]>();
  const walked = new Map<string, number>();
  for (const door of doors) {
    const insp = (await ok('GET', door)).inspection;
    states.set(insp.state.path, [...(states.get(insp.state.path) ?? []), insp.subject.id]);
    for (const step of insp.path) for (const key of step.transitions) walked.set(key, (walked.get(key) ?? 0) + 1);
  }
  return { states, walked };
}

/** Chooses a state by clicking it on the diagram and waits for its first page. */
async function clickState(page: Page, path: string) {
  await page.click(`#diagram g[id="${stateId(path)}"] > :is(path, polygon)`);
  await page.waitForSelector(`#population[data-listed="${path}"][data-list-page="1"]`, { timeout: HANG_MS });
}

beforeAll(async () => {
  ({ app, url } = await listeningApp({ clock: CLOCK }));
  browser = await launch();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('where a workspace\'s Matters gather', () => {
  let W: string;
  const made: Record<string, Made[]> = {};
  /** Every Matter made, in the order made: their ladders entered their first state in this order. */
  const order: Made[] = [];
  const make = async (state: string, client: string, advances: number, times = 1) => {
    for (let i = 0; i < times; i++) {
      const m = await matter(W, client, advances);
      (made[state] ??= []).push(m);
      order.push(m);
    }
  };

  beforeAll(async () => {
    W = `/workspaces/${(await ok('POST', '/workspaces')).workspace.id}`;
    // In the order they enter their states: the first of each is the oldest there.
    await make('open.waiting_on_signer', 'Ada Inventor', 4, 3);
    await make('open.needs_client_direction', FIXTURE.decliningClient, 4);
    await make('fulfilled', FIXTURE.fulfillingClient, 5);
    await make('open.prepare', 'Ada Inventor', 1, 2);
    await make('open.intake', 'Ada Inventor', 0);
    await make('withdrawn', 'Ada Inventor', 1);
    await ok('POST', `${made.withdrawn[0].base}/terminal`, { outcome: 'withdrawn', byClient: true });
  }, 60_000);

  it('counts on the diagram exactly the Matters made in each state, every transition as they walked it, and lists a clicked state\'s Matters, oldest first, each opening its inspector', async () => {
    const { states, walked } = await byInspection(Object.values(made).flat().map((m) => `${m.base}/inspection`));
    for (const [state, matters] of Object.entries(made)) expect(states.get(state), state).toEqual(matters.map((m) => m.id));
    const { page, errors, foreign } = await openPage(browser, url, `${W}/inspect`, READY);
    await expectCounts(page, matterMachine, states, walked);
    expect(await page.textContent('#total')).toBe('9 Matters');

    await clickState(page, 'open.waiting_on_signer');
    expect(await listed(page)).toEqual(made['open.waiting_on_signer'].map((m) => ({ id: m.id, href: `${m.base}/inspect` })));
    expect((await drawn(page)).chosen).toEqual([stateId('open.waiting_on_signer')]);
    expect(new URL(page.url()).searchParams.get('state')).toBe('open.waiting_on_signer');
    expect(await page.textContent('#members-h')).toBe('open.waiting_on_signer: 3 Matters, oldest first');
    await page.screenshot({ path: join(SHOTS, 'population-matters.png'), fullPage: true });

    // Each listed Matter opens its inspector, which draws it in that state.
    await page.click(`#members a[href="${made['open.waiting_on_signer'][1].base}/inspect"]`);
    await page.waitForSelector('#inspector[data-ready="true"]', { timeout: HANG_MS });
    expect(await page.getAttribute('#diagram g.is-current', 'id')).toBe(stateId('open.waiting_on_signer'));
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  });

  it('gives the oldest\'s age in a waiting state as the journal\'s instants say, under the deterministic clock, with a link to it', async () => {
    const { page } = await openPage(browser, url, `${W}/inspect`, READY);
    const asOf = Date.parse((await page.getAttribute('#as-of', 'datetime'))!);
    for (const state of ['open.waiting_on_signer', 'open.needs_client_direction']) {
      const oldest = made[state][0];
      // The fact that entered the state: the last of its path (each of these Matters is still where that fact put it).
      const insp = (await ok('GET', `${oldest.base}/inspection`)).inspection;
      const entered = insp.path.findLast((s: any) => s.from !== s.to && s.to === state) ?? insp.path.at(-1);
      expect(entered.at.startsWith(STARTED.slice(0, 16)), `${entered.at} is on the fixed clock started at ${STARTED}`).toBe(true);
      // Hours and minutes, the two largest units the page words an age in (what 3 h 25 min on the clock reads).
      const seconds = Math.floor((asOf - Date.parse(entered.at)) / 1000);
      const age = `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
      expect(age).toMatch(/^3 h 2[5-9] min$/);
      expect((await drawn(page)).ages[stateId(state)], state).toBe(`oldest ${age}`);
      const row = page.locator(`#states tr[data-state="${state}"]`);
      expect(await row.locator('a').getAttribute('href')).toBe(`${oldest.base}/inspect`);
      expect(await row.locator('a').textContent()).toBe(oldest.id);
      expect(await row.locator('.age').textContent()).toBe(age);
      expect(await row.locator('time').getAttribute('datetime')).toBe(entered.at);
    }
    // A state nobody waits in says no age on the diagram.
    expect((await drawn(page)).ages[stateId('open.prepare')]).toBeUndefined();
    await page.close();
  });

  it('pages a state\'s Matters oldest first, and opens at a state named in its address', async () => {
    await make('open.prepare', 'Ada Inventor', 1, MEMBERS_PAGE + 3 - made['open.prepare'].length);
    const all = made['open.prepare'];
    expect(all).toHaveLength(MEMBERS_PAGE + 3);
    const { page } = await openPage(browser, url, `${W}/inspect?state=open.prepare`, '#population[data-listed="open.prepare"]');
    expect((await listed(page)).map((m) => m.id)).toEqual(all.slice(0, MEMBERS_PAGE).map((m) => m.id));
    expect(await page.textContent('#members-info')).toBe(`Matters 1–${MEMBERS_PAGE} of ${MEMBERS_PAGE + 3}`);
    await page.click('#members-later');
    await page.waitForSelector('#population[data-list-page="2"]', { timeout: HANG_MS });
    expect((await listed(page)).map((m) => m.id)).toEqual(all.slice(MEMBERS_PAGE).map((m) => m.id));
    expect(await page.isDisabled('#members-later')).toBe(true);
    await page.click('#members-earlier');
    await page.waitForSelector('#population[data-list-page="1"]', { timeout: HANG_MS });
    expect((await listed(page)).map((m) => m.id)).toEqual(all.slice(0, MEMBERS_PAGE).map((m) => m.id));
    await page.close();
  });

  it('chooses a state by keyboard, on the diagram and in the table, and moves focus to its list', async () => {
    const { page } = await openPage(browser, url, `${W}/inspect`, READY);
    // Tab reaches the states on the diagram: each is a button named by its path and count.
    let reached: string | null = null;
    await page.locator('h1').click();
    for (let i = 0; i < 40 && reached !== stateId('open.needs_client_direction'); i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => document.activeElement?.id ?? null);
    }
    expect(reached).toBe(stateId('open.needs_client_direction'));
    expect(await page.getAttribute(`g[id="${stateId('open.needs_client_direction')}"]`, 'aria-label')).toContain('open.needs_client_direction: 1 Matter');
    const outline = await page.evaluate(() => getComputedStyle((document.activeElement as Element).querySelector('path, polygon')!).strokeWidth);
    expect(parseFloat(outline)).toBeGreaterThanOrEqual(3);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#population[data-listed="open.needs_client_direction"]', { timeout: HANG_MS });
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('members-h');
    expect((await listed(page)).map((m) => m.id)).toEqual(made['open.needs_client_direction'].map((m) => m.id));
    await page.focus('#states button[data-state="fulfilled"]');
    await page.keyboard.press('Space');
    await page.waitForSelector('#population[data-listed="fulfilled"]', { timeout: HANG_MS });
    expect((await listed(page)).map((m) => m.id)).toEqual(made.fulfilled.map((m) => m.id));
    await page.close();
  });

  it('counts the Matters\' Deadline Ladders on their own machine, with their facets, and lists a state\'s', async () => {
    const ladders = order.map((m) => `${W}/deadlines/${m.assetId}/inspection`);
    const { states, walked } = await byInspection(ladders);
    const { page, errors } = await openPage(browser, url, `${W}/inspect`, READY);
    await page.click('#machines button[data-kind="deadline-ladder"]');
    await page.waitForSelector('#population[data-machine="deadline-ladder"][data-ready="true"]', { timeout: HANG_MS });
    expect(new URL(page.url()).searchParams.get('machine')).toBe('deadline-ladder');
    await expectCounts(page, deadlineLadderMachine, states, walked);
    const population = (await ok('GET', `${W}/inspection/deadlines`)).population;
    expect(await page.$$eval('#facets li strong', (s) => s.map((x) => x.textContent))).toEqual(population.facets.map((f: any) => `${f.name} ${f.count}`));
    const counting = states.get('open.counting')!;
    await clickState(page, 'open.counting');
    expect((await listed(page)).map((m) => m.id)).toEqual(counting.slice(0, MEMBERS_PAGE));
    for (const m of await listed(page)) expect(m.href).toBe(`${W}/deadlines/${m.id}/inspect`);
    await page.screenshot({ path: join(SHOTS, 'population-ladders.png') });
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('where a firm\'s Enrollments and a key\'s top-level records gather', () => {
  it('counts a firm\'s Enrollments on their machine and lists a state\'s', async () => {
    const F = `/firms/${(await ok('POST', '/firms')).firm.id}`;
    await ok('POST', `${F}/enrollments`, { memberId: 'mb_fixture_eligible', grants: ['roster', 'remittance', 'routing'] });
    await ok('POST', `${F}/enrollments`, { memberId: 'mb_fixture_suspended', grants: ['roster'] });
    await ok('POST', `${F}/enrollments/mb_fixture_suspended/revoke`, {});
    const { states, walked } = await byInspection(['mb_fixture_eligible', 'mb_fixture_suspended'].map((m) => `${F}/enrollments/${m}/inspection`));
    const { page, errors } = await openPage(browser, url, `${F}/inspect`, READY);
    expect(await page.textContent('h1')).toContain('Where Enrollments gather');
    // State counts by state; the members are listed by their Enrollment's id.
    const d = await drawn(page);
    for (const path of standing(enrollmentMachine)) expect(d.counts[stateId(path)], path).toBe(String(states.get(path)?.length ?? 0));
    for (const key of edgeIndex(enrollmentMachine).keys) expect(d.counted[key], key).toBe(walked.get(key) ? `×${walked.get(key)}` : null);
    await clickState(page, 'revoked');
    expect(await page.locator('#members > li[data-id]').count()).toBe(1);
    expect(await page.getAttribute('#members > li[data-id] a', 'href')).toMatch(new RegExp(`^${F}/enrollments/mb_fixture_suspended/inspect$`));
    expect(errors).toEqual([]);
    await page.close();
  });

  it('at the top level counts nothing without a key, saying how, and then only that key\'s Matters, the key kept in the page', async () => {
    const keyOf = async (email: string) => (await ok('POST', '/keys', { email })).key as string;
    const [mine, theirs] = [await keyOf('mine@example.com'), await keyOf('theirs@example.com')];
    const A = { authorization: `Bearer ${mine}` };
    const ours = [await matter('', 'Ada Inventor', 1, A), await matter('', 'Ada Inventor', 1, A), await matter('', 'Ada Inventor', 0, A)];
    await matter('', 'Ada Inventor', 1, { authorization: `Bearer ${theirs}` });
    const { page, errors } = await openPage(browser, url, '/inspect', READY);
    expect(await page.isVisible('#empty')).toBe(true);
    expect(await page.textContent('#empty')).toBe((await ok('GET', '/inspection/matters')).message);
    expect((await drawn(page)).counts).toEqual({});
    await page.fill('#key', mine);
    await page.click('#key-form button[type=submit]');
    await page.waitForSelector('#population[data-ready="true"] #total:text("3 Matters")', { timeout: HANG_MS });
    expect(await page.inputValue('#key')).toBe('');
    const d = await drawn(page);
    expect(d.counts[stateId('open.prepare')]).toBe('2');
    expect(d.counts[stateId('open.intake')]).toBe('1');
    await clickState(page, 'open.prepare');
    expect((await listed(page)).map((m) => m.id)).toEqual(ours.slice(0, 2).map((m) => m.id));
    // The key never reaches the address, nor storage.
    expect(page.url()).not.toContain(mine);
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }))).not.toContain(mine);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('the population page for everyone', () => {
  it('is served under /docs\'s CSP beside every population door, with nothing from elsewhere', async () => {
    const docs = await app.inject({ url: '/docs' });
    const csp = (h: unknown) => String(h).replace(/'nonce-[^']+'/, "'nonce-…'");
    const contract = (await ok('GET', '/openapi.json')) as { paths: Record<string, unknown> };
    const doors = Object.keys(contract.paths).filter((p) => /\/inspection\/(matters|enrollments)$/.test(p));
    expect(doors.length).toBeGreaterThanOrEqual(4);
    for (const door of doors) {
      const page = door.replace(/\/inspection\/(matters|enrollments)$/, '/inspect');
      expect(Object.keys(contract.paths), door).toContain(page);
      const grainIds = { '{workspaceId}': (await ok('POST', '/workspaces')).workspace.id, '{tenantId}': (await ok('POST', '/tenants')).tenant.id, '{firmId}': (await ok('POST', '/firms')).firm.id };
      const at = (gone: boolean) => Object.entries(grainIds).reduce((p, [name, id]) => p.replace(name, gone ? `${id.slice(0, 3)}${'0'.repeat(25)}` : id), page);
      // A grain that is not there is refused by the page as by its population door, in the same words.
      if (page !== '/inspect') {
        const [refusedPage, refusedDoor] = await Promise.all([app.inject({ url: at(true) }), app.inject({ url: at(true).replace(/\/inspect$/, door.slice(door.lastIndexOf('/inspection'))) })]);
        expect(refusedPage.statusCode, page).toBe(404);
        expect(refusedPage.json(), page).toEqual(refusedDoor.json());
      }
      const html = await app.inject({ url: at(false) });
      expect(html.statusCode).toBe(200);
      expect(csp(html.headers['content-security-policy'])).toBe(csp(docs.headers['content-security-policy']));
      expect(html.body).not.toMatch(/\son[a-z]+\s*=/i);
      expect(html.body).not.toMatch(/(src|href)="(https?:)?\/\//);
    }
  });

  it('has no serious or critical axe-core violation at 1280×800 and at 390×844, a state listed, the ladders shown; nothing but the diagram wider than a narrow screen', async () => {
    const W = `/workspaces/${(await ok('POST', '/workspaces')).workspace.id}`;
    for (const [client, n] of [['Ada Inventor', 4], [FIXTURE.decliningClient, 4], ['Ada Inventor', 1]] as const) await matter(W, client, n);
    for (const viewport of [WIDE, NARROW]) {
      const { page } = await openPage(browser, url, `${W}/inspect`, READY, viewport);
      await expectAccessible(page, `Matters, ${viewport.width}×${viewport.height}`);
      await page.click('#states button[data-state="open.waiting_on_signer"]');
      await page.waitForSelector('#population[data-listed="open.waiting_on_signer"]', { timeout: HANG_MS });
      await page.evaluate(() => document.querySelectorAll('details').forEach((d) => ((d as HTMLDetailsElement).open = true)));
      await expectAccessible(page, `a state listed, ${viewport.width}×${viewport.height}`);
      if (viewport === NARROW) {
        expect(await widerThanScreen(page)).toEqual([]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: join(SHOTS, 'population-narrow.png') });
      }
      await page.click('#machines button[data-kind="deadline-ladder"]');
      await page.waitForSelector('#population[data-machine="deadline-ladder"][data-ready="true"]', { timeout: HANG_MS });
      await expectAccessible(page, `ladders, ${viewport.width}×${viewport.height}`);
      await page.close();
    }
    const top = await openPage(browser, url, '/inspect', READY);
    await expectAccessible(top.page, 'the top level, keyless');
    await top.page.close();
  }, 120_000);
});
