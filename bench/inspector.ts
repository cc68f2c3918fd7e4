/**
 * The inspector page (issue 35) in headless chromium, beside a plain
 * `GET /matters/{id}` of the same Matter in the same run: what a reviewer
 * waits for, next to what an agent waits for.
 *
 * The real service (`bin/legalwork.js serve` on a temp journal) holds two
 * sandbox Matters: a fulfilled one (9 facts) and one with 1,000 facts (two
 * stages, then 998 documents recorded). For each, in rounds, a fresh browser
 * context opens its inspector page and reads, from the page's own
 * Performance timeline, its first contentful paint (the shell, before any
 * data) and the `inspector:marked` mark the page sets once the diagram is
 * drawn with its marks and the timeline rendered (two more requests: the SVG
 * and the inspection). The GET, the inspection (`GET …/inspection`: the
 * journal folded through the machine, every decider asked) and the
 * inspection as of the Matter's middle fact (`?at=`) are timed from this
 * process (fetch, loopback, one at a time after a warm-up). Medians. Figures
 * only, never asserted. First of all, what the first page a process serves
 * costs beside the next (its scripts are bundled then, `src/web/assets.ts`).
 *
 * Runs inside `npm run bench` (`bench()`), or alone: `node --import tsx bench/inspector.ts`.
 * BENCH_INSPECTOR_ROUNDS (default 10) tunes it.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { quantile } from './lib/stats.ts';
import { removeDir, spawnService, tempDataDir } from './lib/service.ts';
import { ms, table } from './lib/table.ts';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ROUNDS = Number(process.env.BENCH_INSPECTOR_ROUNDS ?? 10);
const HASH = 'a'.repeat(64);

async function json(url: string, method = 'GET', body?: unknown): Promise<any> {
  const res = await fetch(url, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
  const parsed = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${url} answered ${res.status}: ${JSON.stringify(parsed)}`);
  return parsed;
}

const median = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);

export async function bench(): Promise<string[]> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`);
  const dir = tempDataDir();
  const service = await spawnService(dir);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  try {
    // The service's first page bundles the pages' scripts; /sandbox's HTML is static, so the difference is the bundling.
    const pageTimes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const res = await fetch(`${service.url}/sandbox`);
      await res.text();
      pageTimes.push(performance.now() - t);
    }
    const W = `/workspaces/${(await json(`${service.url}/workspaces`, 'POST')).workspace.id}`;
    const open = async (client: string) => (await json(`${service.url}${W}/matters`, 'POST', { matterType: 'patent_provisional', client: { name: client }, asset: { title: 'Self-folding map' } })).matter.id as string;
    const fulfilled = await open('Fulfilling Client (fixture)');
    for (let i = 0; i < 5; i++) await json(`${service.url}${W}/matters/${fulfilled}/advance`, 'POST', {});
    const long = await open('Ada Inventor');
    for (let i = 0; i < 2; i++) await json(`${service.url}${W}/matters/${long}/advance`, 'POST', {});
    for (let i = 0; i < 997; i++) await json(`${service.url}${W}/matters/${long}/documents`, 'POST', { name: `exhibit-${i}.pdf`, kind: 'exhibit', sha256: HASH });

    const rows: string[][] = [];
    for (const [label, id] of [['fulfilled, 9 facts', fulfilled], ['1,000 facts', long]] as const) {
      const path = `${W}/matters/${id}`;
      const facts = (await json(`${service.url}${path}/inspection`)).inspection.path.length;
      // The plain GET of the same Matter: what an agent waits for; and the inspection the page draws, as of now and as of its middle fact (time travel).
      const middle = (await json(`${service.url}${path}/journal`)).events[Math.floor(facts / 2)].seq as number;
      const timed = async (url: string) => {
        for (let i = 0; i < 5; i++) await json(url);
        const times: number[] = [];
        for (let i = 0; i < ROUNDS * 5; i++) {
          const t = performance.now();
          await json(url);
          times.push(performance.now() - t);
        }
        return times;
      };
      const gets = await timed(`${service.url}${path}`);
      const inspections = await timed(`${service.url}${path}/inspection`);
      const travels = await timed(`${service.url}${path}/inspection?at=${middle}`);
      const paints: number[] = [];
      const drawn: number[] = [];
      for (let round = 0; round <= ROUNDS; round++) {
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        const page = await context.newPage();
        await page.goto(`${service.url}${path}/inspect`, { waitUntil: 'load' });
        await page.waitForSelector('#inspector[data-ready="true"]', { timeout: 30_000 });
        const t = await page.evaluate(() => ({
          fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
          marked: performance.getEntriesByName('inspector:marked')[0]?.startTime ?? NaN,
        }));
        await context.close();
        // Round 0 warms the service's and the browser's caches.
        if (round === 0) continue;
        paints.push(t.fcp);
        drawn.push(t.marked);
      }
      rows.push([label, String(facts), ms(median(gets)), ms(median(inspections)), ms(median(travels)), ms(median(paints)), ms(median(drawn))]);
    }
    return [
      `the first page a fresh process serves (GET /sandbox, its scripts bundled then): ${ms(pageTimes[0])}; the next two: ${ms(pageTimes[1])}, ${ms(pageTimes[2])}`,
      `the inspector page in headless chromium (1280x800, a fresh context a round, ${ROUNDS} rounds, medians) beside GET /matters/{id} and its inspection (GET …/inspection, and ?at= its middle fact) of the same Matter (${ROUNDS * 5} sequential fetches each)`,
      ...table(['Matter', 'facts', 'GET /matters/{id}', 'GET …/inspection', 'GET …/inspection?at=', 'page: first contentful paint', 'page: diagram marked (inspector:marked)'], rows),
    ];
  } finally {
    await browser.close();
    await service.stop();
    removeDir(dir);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log((await bench()).join('\n'));
