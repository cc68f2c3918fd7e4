/**
 * The inspector page (issue 35) in a real headless browser (Debian's chromium
 * driven by playwright-core, as test/browser.test.ts) against a real
 * listening service. Matters are driven over HTTP into every waiting and
 * terminal state; on each one's page the marked state and the numbered path
 * are checked against the inspection the page read and against the machine
 * itself (its state nodes and its edges, `machines/edges.ts`), never against
 * a hand-kept list. Then: moving through the timeline by keyboard redraws the
 * diagram as of each fact; an advance made elsewhere arrives on an open page
 * without a reload (over the event stream, and by polling where the stream
 * needs a key); the Deadline Ladder's and the Enrollment's pages draw their own
 * machines; a Matter with 1,000 facts stays usable; and axe-core finds no
 * serious or critical violation at 1280×800 nor at 390×844.
 *
 * The screenshots in docs/ are taken here: `LEGALWORK_DOCS_SCREENSHOTS=1`
 * writes them there (docs/inspector.md shows them); otherwise they go to a
 * temp directory, so an ordinary run leaves the tree as it was.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { AnyStateMachine } from 'xstate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { edgeIndex, stateNodes } from '../machines/edges.ts';
import { INITIAL_EDGE_ID, stateId, transitionToken } from '../src/diagrams/names.ts';
import { MACHINES } from '../src/diagrams/registry.ts';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { POLL_MS } from '../src/web/browser/follow.ts';
import { TIMELINE_PAGE } from '../src/web/browser/timeline.ts';
import { listeningApp, type TestApp } from './helpers/app.ts';
import { expectAccessible, HANG_MS, launch, NARROW, openPage, SHOTS, WIDE, type Opened } from './helpers/pages.ts';

const HASH = `sha256:${'a'.repeat(64)}`;

let app: TestApp;
let url: string;
let browser: Browser;
let W: string;

/** JSON over the app in-process: driving Matters needs no browser. */
async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: method as never, url: path, ...(body !== undefined ? { payload: body as never } : {}), headers });
  return { status: res.statusCode, body: res.json() as any, headers: res.headers };
}

async function ok(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await api(method, path, body, headers);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

const inspection = async (path: string) => (await ok('GET', path)).inspection;

/** A sandbox Matter for `client`, advanced `advances` times. */
async function matter(client: string, advances: number): Promise<{ id: string; assetId: string; base: string }> {
  const opened = await ok('POST', `${W}/matters`, { matterType: 'patent_provisional', client: { name: client }, asset: { title: 'Self-folding map' } });
  const base = `${W}/matters/${opened.matter.id}`;
  for (let i = 0; i < advances; i++) await ok('POST', `${base}/advance`, {});
  return { id: opened.matter.id, assetId: opened.matter.assetId, base };
}

/** Every waiting and terminal state of the Matter machine, each reached over HTTP as an agent would. */
const MATTERS: Record<string, () => Promise<{ id: string; assetId: string; base: string }>> = {
  waiting_on_signer: () => matter('Ada Inventor', 4),
  needs_client_direction: () => matter(FIXTURE.decliningClient, 4),
  fulfilled: () => matter(FIXTURE.fulfillingClient, 5),
  withdrawn: async () => {
    const m = await matter('Ada Inventor', 1);
    await ok('POST', `${m.base}/documents`, { name: 'spec.pdf', kind: 'specification', sha256: HASH.slice(7) });
    await ok('POST', `${m.base}/terminal`, { outcome: 'withdrawn', byClient: true });
    return m;
  },
  lapsed: async () => {
    const m = await matter('Ada Inventor', 2);
    await ok('POST', `${m.base}/terminal`, { outcome: 'lapsed', confirmedUnresponsiveTwice: true });
    return m;
  },
  referred_out: async () => {
    const m = await matter('Ada Inventor', 3);
    await ok('POST', `${m.base}/terminal`, { outcome: 'referred_out', referredTo: 'Counsel in the client\'s state' });
    return m;
  },
};

const machineOf = (id: string): AnyStateMachine => MACHINES.find((m) => m.machine.id === id)!.machine;

/** Opens a page and waits until its script has drawn the inspection; records console errors and any request elsewhere. */
const open = (path: string, viewport = WIDE): Promise<Opened> => openPage(browser, url, path, '#inspector[data-ready="true"]', viewport);

/** What the page drew: marked elements by their SVG names, and the badges by the element they number. */
async function drawn(page: Page) {
  return page.evaluate(() => {
    const ids = (sel: string) => [...document.querySelectorAll(`#diagram ${sel}`)].map((g) => g.id);
    return {
      current: ids('g.is-current'),
      taken: ids('g.is-taken'),
      open: ids('g.is-open'),
      refused: ids('g.is-refused'),
      badges: Object.fromEntries([...document.querySelectorAll('#diagram .badge.step')].map((b) => [(b as SVGElement).dataset.for, b.textContent])),
      nowTag: document.querySelector('#diagram .badge.now-label')?.textContent ?? null,
      /** Each named element's id by the transition tokens it carries. */
      holders: Object.fromEntries([...document.querySelectorAll('#diagram g.transition')].flatMap((g) => [...g.classList].filter((c) => c.startsWith('t:')).map((c) => [c, g.id]))),
      viewSeq: Number((document.querySelector('#inspector') as HTMLElement).dataset.viewSeq),
    };
  });
}

/** How the page labels the steps one element took (the spec of its badges): up to three listed, else first, second, last and the count. */
const stepsLabel = (steps: number[]) => (steps.length <= 3 ? steps.join(', ') : `${steps[0]}, ${steps[1]} … ${steps[steps.length - 1]} (${steps.length}×)`);

/**
 * The page drew `insp` as the machine says: the one marked state is the
 * inspection's, a state the machine has (final exactly when the machine says
 * so) and where the path ends; each step's edges are edges of the machine,
 * walked from the state the step left, marked taken and numbered in order;
 * the doors open now are marked open, the refusing edges refused.
 */
async function expectDrawn(page: Page, insp: any) {
  const machine = machineOf(insp.machine.id);
  const d = await drawn(page);
  expect(d.viewSeq).toBe(insp.at.seq);
  const node = stateNodes(machine).find((n) => n.path.join('.') === insp.state.path);
  expect(node, `${insp.state.path} is a state of ${machine.id}`).toBeDefined();
  expect(node!.type === 'final').toBe(insp.state.final);
  expect(d.current).toEqual([stateId(insp.state.path)]);
  expect(d.nowTag).toBe(insp.at.latest ? 'now' : `as of #${insp.at.seq}`);
  expect(insp.path.at(-1).to).toBe(insp.state.path);

  const keys = edgeIndex(machine).keys;
  const stepsOf = new Map<string, number[]>();
  const numbered = (id: string, step: number) => stepsOf.set(id, [...(stepsOf.get(id) ?? []), step]);
  insp.path.forEach((s: any, i: number) => {
    expect(s.step).toBe(i + 1);
    if (i > 0) expect(s.from, `step ${s.step} leaves where step ${i} arrived`).toBe(insp.path[i - 1].to);
    if (s.from === null) {
      // The opening: the innermost start arrow into the first state carries the number.
      const scopes = ['', ...s.to.split('.').slice(0, -1).map((_: string, j: number, parts: string[]) => parts.slice(0, j + 1).join('.'))];
      numbered(`${INITIAL_EDGE_ID}${scopes.at(-1)}`, s.step);
      for (const scope of scopes) expect(d.taken).toContain(`${INITIAL_EDGE_ID}${scope}`);
      return;
    }
    for (const key of s.transitions) {
      expect(keys, `step ${s.step} names an edge of ${machine.id}`).toContain(key);
      const holder = d.holders[transitionToken(key)];
      expect(holder, `the edge ${key} is drawn`).toBeDefined();
      expect(d.taken).toContain(holder);
      numbered(holder, s.step);
    }
  });
  for (const [id, steps] of stepsOf) expect(d.badges[id], `badge of ${id}`).toBe(stepsLabel(steps));
  for (const door of insp.open) for (const key of door.transitions) expect(d.open, `open: ${door.command}`).toContain(d.holders[transitionToken(key)]);
  for (const r of insp.refused) {
    for (const key of r.transitions) {
      const holder = d.holders[transitionToken(key)];
      if (!d.open.includes(holder) && !d.taken.includes(holder)) expect(d.refused, `refused: ${r.command}`).toContain(holder);
    }
  }
  return d;
}

/** Waits until the page draws the fact `seq`. */
const drawnAt = (page: Page, seq: number) => page.waitForSelector(`#inspector[data-view-seq="${seq}"]`, { timeout: HANG_MS });

beforeAll(async () => {
  ({ app, url } = await listeningApp());
  browser = await launch();
  W = `/workspaces/${(await ok('POST', '/workspaces')).workspace.id}`;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('the inspector of a Matter', () => {
  it.each(Object.keys(MATTERS))('draws a Matter in %s: its state marked, its path numbered, its open doors and refusals, all from the service', async (status) => {
    const m = await MATTERS[status]();
    const insp = await inspection(`${m.base}/inspection`);
    // The state the machine is in is the one the Matter's own JSON names: a state node of the machine with that name.
    expect((await ok('GET', m.base)).matter.status).toBe(status);
    expect(insp.state.path.split('.').at(-1)).toBe(status);
    const { page, errors, foreign } = await open(`${m.base}/inspect`);
    await expectDrawn(page, insp);
    expect(await page.textContent('#state-name')).toBe(status);
    expect(await page.locator('#open-list > li:not(.note)').count()).toBe(insp.open.length);
    expect(await page.locator('#refused-list > li').count()).toBe(insp.refused.length);
    expect(await page.locator('#timeline > li').count()).toBe(insp.path.length);
    if (status === 'waiting_on_signer') await page.screenshot({ path: join(SHOTS, 'inspector-matter.png'), fullPage: true });
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  });

  it('answers no such Matter with the refusal its inspection door answers, never a page of nothing', async () => {
    const missing = `${W}/matters/mt_0000000000000000000000000`;
    const refused = await api('GET', `${missing}/inspection`);
    expect(refused.status).toBe(404);
    const page = await api('GET', `${missing}/inspect`);
    expect(page.status).toBe(404);
    expect(page.body).toEqual(refused.body);
  });

  it('is served under the same CSP as /docs, its script by nonce, with nothing from elsewhere', async () => {
    const m = await matter('Ada Inventor', 1);
    const page = await app.inject({ url: `${m.base}/inspect` });
    const docs = await app.inject({ url: '/docs' });
    const csp = (h: unknown) => String(h).replace(/'nonce-[^']+'/, "'nonce-…'");
    expect(csp(page.headers['content-security-policy'])).toBe(csp(docs.headers['content-security-policy']));
    const html = page.body;
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('moves through the timeline by keyboard, redrawing the Matter as of each fact, and back to now', async () => {
    const m = await MATTERS.fulfilled();
    const latest = await inspection(`${m.base}/inspection`);
    const { page, errors } = await open(`${m.base}/inspect`);
    // The one stop of the timeline in the tab order is the fact shown: the head's.
    const pick = page.locator('#timeline .pick[tabindex="0"]');
    expect(await pick.getAttribute('data-seq')).toBe(String(latest.head.seq));
    await pick.focus();
    await page.keyboard.press('Home');
    const first = latest.path[0];
    await drawnAt(page, first.seq);
    const states = [(await expectDrawn(page, await inspection(`${m.base}/inspection?at=${first.seq}`))).current[0]];
    expect(new URL(page.url()).searchParams.get('at')).toBe(String(first.seq));
    expect(await page.textContent('#mode')).toBe('time travel');
    for (let i = 1; i < 4; i++) {
      await page.keyboard.press('ArrowDown');
      await drawnAt(page, latest.path[i].seq);
      states.push((await expectDrawn(page, await inspection(`${m.base}/inspection?at=${latest.path[i].seq}`))).current[0]);
      // Focus follows the chosen fact, so the next key moves on from it.
      expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.seq)).toBe(String(latest.path[i].seq));
    }
    // The marked state moved with the facts, one state of the path after another.
    expect(states).toEqual(latest.path.slice(0, 4).map((s: any) => stateId(s.to)));
    expect(new Set(states).size).toBe(4);
    await page.keyboard.press('ArrowUp');
    await drawnAt(page, latest.path[2].seq);
    await page.screenshot({ path: join(SHOTS, 'inspector-time-travel.png') });
    await page.keyboard.press('End');
    await drawnAt(page, latest.head.seq);
    await expectDrawn(page, latest);
    expect(new URL(page.url()).searchParams.get('at')).toBeNull();
    expect(await page.textContent('#mode')).toBe('now');
    // "Back to now" from a fact chosen by click.
    await page.click(`#timeline .pick[data-seq="${latest.path[1].seq}"]`);
    await drawnAt(page, latest.path[1].seq);
    await page.click('#back');
    await drawnAt(page, latest.head.seq);
    // Opened at ?at=, the page draws that fact; at a seq between two of its facts, the one at or before it.
    const again = await open(`${m.base}/inspect?at=${latest.path[2].seq}`);
    await expectDrawn(again.page, await inspection(`${m.base}/inspection?at=${latest.path[2].seq}`));
    await again.page.close();
    const between = latest.path.findIndex((s: any, i: number) => i > 0 && s.seq - latest.path[i - 1].seq > 1);
    expect(between, 'two facts of the Matter with another fact of the grain between them').toBeGreaterThan(0);
    const gap = await open(`${m.base}/inspect?at=${latest.path[between].seq - 1}`);
    await expectDrawn(gap.page, await inspection(`${m.base}/inspection?at=${latest.path[between - 1].seq}`));
    expect(await gap.page.getAttribute('#timeline .pick[aria-pressed="true"]', 'data-seq')).toBe(String(latest.path[between - 1].seq));
    await gap.page.close();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('reaches every control by keyboard, with a visible focus', async () => {
    const m = await MATTERS.waiting_on_signer();
    const { page } = await open(`${m.base}/inspect`);
    // An earlier fact chosen, so "Back to now" is live too; then Tab from the top of the page.
    await page.locator('#timeline .pick').first().click();
    await drawnAt(page, Number(await page.locator('#timeline .pick').first().getAttribute('data-seq')));
    await page.locator('h1').click();
    const seen = new Map<string, { outline: string }>();
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      const f = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        const style = getComputedStyle(el);
        const name = el.id ? `#${el.id}` : el.classList.contains('pick') ? '.pick' : el.tagName.toLowerCase();
        return { name, outline: `${style.outlineStyle} ${style.outlineWidth}` };
      });
      // Past the last control focus wraps to the document itself.
      if (f.name !== 'body' && !seen.has(f.name)) seen.set(f.name, f);
    }
    for (const control of ['a', '#back', '#zoom', '#diagram', 'summary', '.pick']) expect([...seen.keys()], control).toContain(control);
    for (const [name, f] of seen) expect(f.outline, `focus outline of ${name}`).toMatch(/^(solid|auto) [2-9]/);
    // The zoom toggle works from the keyboard.
    await page.focus('#zoom');
    await page.keyboard.press('Enter');
    expect(await page.getAttribute('#zoom', 'aria-pressed')).toBe('true');
    await page.keyboard.press('Space');
    expect(await page.getAttribute('#zoom', 'aria-pressed')).toBe('false');
    await page.close();
  });

  it('shows a live advance on an open page without a reload, over the event stream', async () => {
    const m = await matter('Ada Inventor', 2);
    const before = await inspection(`${m.base}/inspection`);
    const { page, errors } = await open(`${m.base}/inspect`);
    await page.waitForSelector('#inspector[data-follow="stream"]', { timeout: HANG_MS });
    await page.evaluate(() => ((window as any).__notReloaded = true));
    await ok('POST', `${m.base}/advance`, {});
    const after = await inspection(`${m.base}/inspection`);
    expect(after.head.seq).toBeGreaterThan(before.head.seq);
    await drawnAt(page, after.head.seq);
    await expectDrawn(page, after);
    expect(await page.locator(`#timeline > li[data-seq="${after.head.seq}"]`).count()).toBe(1);
    expect(await page.evaluate(() => (window as any).__notReloaded)).toBe(true);
    // While time-travelling, a new fact joins the timeline but leaves the diagram where the reviewer put it.
    await page.click(`#timeline .pick[data-seq="${before.head.seq}"]`);
    await drawnAt(page, before.head.seq);
    await ok('POST', `${m.base}/advance`, {});
    const third = await inspection(`${m.base}/inspection`);
    await page.waitForSelector(`#timeline > li[data-seq="${third.head.seq}"]`, { timeout: HANG_MS });
    expect(await page.getAttribute('#inspector', 'data-view-seq')).toBe(String(before.head.seq));
    expect(await page.textContent('#back')).toContain('1 new');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('follows a top-level Matter without a key by reading its inspection again, and says so', async () => {
    const key = (await ok('POST', '/keys', { email: 'reviewer@example.com' })).key;
    const A = { authorization: `Bearer ${key}` };
    const opened = await ok('POST', '/matters', { matterType: 'patent_provisional', client: { name: 'Ada Inventor' }, asset: { title: 'Map' } }, A);
    const base = `/matters/${opened.matter.id}`;
    const { page, errors } = await open(`${base}/inspect`);
    await page.waitForSelector('#inspector[data-follow="polling"]', { timeout: HANG_MS });
    expect(await page.textContent('#follow')).toContain(`every ${POLL_MS / 1000} s`);
    await ok('POST', `${base}/advance`, {}, A);
    const after = await inspection(`${base}/inspection`);
    await drawnAt(page, after.head.seq);
    await expectDrawn(page, after);
    // The stream refused without a key is the one console error a browser reports for it.
    expect(errors.filter((e) => !/EventSource|text\/event-stream|MIME type/i.test(e))).toEqual([]);
    await page.close();
  }, 30_000);
});

describe('the ways to the inspector', () => {
  it('opens from the sandbox page beside it, and follows each click there live; /docs says where it is', async () => {
    const context = await browser.newContext({ viewport: WIDE });
    const page = await context.newPage();
    const click = async (id: string) => {
      await page.click(`#${id}:not([disabled])`);
      await page.waitForSelector('body[data-busy="false"]');
    };
    await page.goto(`${url}/sandbox`);
    await page.waitForSelector('body[data-ready="true"]');
    await click('open-workspace');
    await page.selectOption('#client', 'Ada Inventor');
    await click('open-matter');
    const id = (await page.textContent('#matter-id'))!;
    const [inspector] = await Promise.all([context.waitForEvent('page'), page.click('#inspect')]);
    await inspector.waitForSelector('#inspector[data-ready="true"]', { timeout: HANG_MS });
    expect(new URL(inspector.url()).pathname).toMatch(new RegExp(`^/workspaces/ws_[^/]+/matters/${id}/inspect$`));
    expect(await inspector.getAttribute('#diagram g.is-current', 'id')).toBe(stateId('open.intake'));
    await click('advance');
    await inspector.waitForSelector(`#diagram g.is-current[id="${stateId('open.prepare')}"]`, { timeout: HANG_MS });
    await page.goto(`${url}/docs`);
    expect(await page.textContent('#inspector + p')).toContain('/matters/{id}/inspect');
    await context.close();
  });
});

describe('the inspector of a Deadline Ladder and of an Enrollment', () => {
  it("draws the Matter's Deadline Ladder on its own machine, reached from the Matter's page", async () => {
    const m = await matter('Ada Inventor', 1);
    const { page, errors } = await open(`${m.base}/inspect`);
    await page.click('#links a:text("its Deadline Ladder")');
    await page.waitForSelector('#inspector[data-ready="true"]', { timeout: HANG_MS });
    expect(new URL(page.url()).pathname).toBe(`${W}/deadlines/${m.assetId}/inspect`);
    const insp = await inspection(`${W}/deadlines/${m.assetId}/inspection`);
    expect(insp.machine.id).toBe('deadline-ladder');
    await expectDrawn(page, insp);
    await page.screenshot({ path: join(SHOTS, 'inspector-ladder.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("draws a member's Enrollment in a firm on its own machine", async () => {
    const F = `/firms/${(await ok('POST', '/firms')).firm.id}`;
    await ok('POST', `${F}/enrollments`, { memberId: 'mb_fixture_eligible', grants: ['roster', 'remittance', 'routing'] });
    const insp = await inspection(`${F}/enrollments/mb_fixture_eligible/inspection`);
    expect(insp.machine.id).toBe('enrollment');
    const { page, errors } = await open(`${F}/enrollments/mb_fixture_eligible/inspect`);
    await expectDrawn(page, insp);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('serves a page beside every inspection door the contract documents', async () => {
    const contract = (await ok('GET', '/openapi.json')) as { paths: Record<string, Record<string, unknown>> };
    const doors = Object.keys(contract.paths).filter((p) => p.endsWith('/inspection'));
    expect(doors.length).toBeGreaterThanOrEqual(3);
    for (const door of doors) expect(Object.keys(contract.paths), door).toContain(door.replace(/\/inspection$/, '/inspect'));
  });
});

describe('the inspector at scale and for everyone', () => {
  it('stays usable for a Matter with 1,000 facts: the timeline pages, keys still move the diagram', async () => {
    const m = await matter('Ada Inventor', 2);
    for (let i = 0; i < 997; i++) await ok('POST', `${m.base}/documents`, { name: `exhibit-${i}.pdf`, kind: 'exhibit', sha256: HASH.slice(7) });
    const latest = await inspection(`${m.base}/inspection`);
    expect(latest.path).toHaveLength(1000);
    const started = performance.now();
    const { page, errors } = await open(`${m.base}/inspect`);
    const loadMs = performance.now() - started;
    expect(await page.locator('#timeline > li').count()).toBe(TIMELINE_PAGE);
    expect(await page.textContent('#page-info')).toBe(`facts ${1000 - TIMELINE_PAGE + 1}–1000 of 1000`);
    await expectDrawn(page, latest);
    const pick = page.locator('#timeline .pick[tabindex="0"]');
    await pick.focus();
    const moved = performance.now();
    await page.keyboard.press('Home');
    await drawnAt(page, latest.path[0].seq);
    expect(await page.textContent('#page-info')).toBe(`facts 1–${TIMELINE_PAGE} of 1000`);
    await page.keyboard.press('PageDown');
    await drawnAt(page, latest.path[TIMELINE_PAGE].seq);
    await expectDrawn(page, await inspection(`${m.base}/inspection?at=${latest.path[TIMELINE_PAGE].seq}`));
    await page.keyboard.press('End');
    await drawnAt(page, latest.head.seq);
    console.log(`inspector, 1,000 facts: first load to drawn ${loadMs.toFixed(0)} ms; Home, Page Down, End drawn in ${(performance.now() - moved).toFixed(0)} ms`);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);

  it('has no serious or critical axe-core violation at 1280×800 and at 390×844, now and as of a fact', async () => {
    const m = await MATTERS.needs_client_direction();
    const latest = await inspection(`${m.base}/inspection`);
    for (const viewport of [WIDE, NARROW]) {
      const { page } = await open(`${m.base}/inspect`, viewport);
      await expectAccessible(page, `now, ${viewport.width}×${viewport.height}`);
      // Open every payload and refusal, so their contents are checked too.
      await page.evaluate(() => document.querySelectorAll('details').forEach((d) => ((d as HTMLDetailsElement).open = true)));
      await expectAccessible(page, `details open, ${viewport.width}×${viewport.height}`);
      await page.click(`#timeline .pick[data-seq="${latest.path[2].seq}"]`);
      await drawnAt(page, latest.path[2].seq);
      await expectAccessible(page, `as of a fact, ${viewport.width}×${viewport.height}`);
      if (viewport === NARROW) {
        // Narrow: nothing wider than the screen but the diagram's own scrolling box.
        const wider = await page.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => !e.closest('#diagram') && e.getBoundingClientRect().right > window.innerWidth + 1).map((e) => `${e.tagName.toLowerCase()} ${e.textContent?.slice(0, 40)}`));
        expect(wider).toEqual([]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
        await page.click('#back');
        await drawnAt(page, latest.head.seq);
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: join(SHOTS, 'inspector-narrow.png') });
      }
      const ladder = await open(`${W}/deadlines/${m.assetId}/inspect`, viewport);
      await expectAccessible(ladder.page, `the ladder, ${viewport.width}×${viewport.height}`);
      await ladder.page.close();
      await page.close();
    }
  }, 120_000);
});
