/**
 * The population page's and the coverage views' logic without a browser
 * (`src/web/browser/`): ages in words, how thick a taken edge is drawn, the
 * captions, the pages of a state's records, and a refusal read out as a page
 * shows it. The pages themselves, drawn in a real browser, are
 * test/browser.population.test.ts and test/browser.coverage.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Population } from '../../src/web/browser/contract.ts';
import { coverageWords, walkedWords } from '../../src/web/browser/coverage.ts';
import { refusalWords } from '../../src/web/browser/http.ts';
import { ageWords, MemberPages, MEMBERS_PAGE, populationCaption, stateLabel, weightOf } from '../../src/web/browser/population-view.ts';

const MATTER = { title: 'Matter', noun: 'Matter', nouns: 'Matters' };
const W = '/workspaces/ws_3x7k2p9q1m8v4c6n0b5z2r7t1/inspection/matters';

const oldest = (ageSeconds: number) => ({ id: 'mt_0k4n8b2v6c1x9z3l7j5h2g8f4', since: '2026-11-26T09:00:00.000Z', seq: 17, ageSeconds, version: 5, links: { entity: 'e', inspect: 'i', inspection: 'n' } });

const POPULATION: Population = {
  subject: { kind: 'matter', grain: 'ws_3x7k2p9q1m8v4c6n0b5z2r7t1', links: { self: W } },
  machine: { id: 'matter', version: 1, diagram: '/docs/diagrams/matter.svg' },
  asOf: '2026-11-26T12:00:00.000Z',
  total: 4,
  states: [
    { path: 'open.intake', final: false, tags: [], count: 1, facets: [], oldest: oldest(60), links: { members: `${W}/states/open.intake` } },
    { path: 'open.waiting_on_signer', final: false, tags: ['awaiting-signer'], count: 3, facets: [], oldest: oldest(3 * 3600 + 5 * 60), links: { members: `${W}/states/open.waiting_on_signer` } },
    { path: 'fulfilled', final: true, tags: [], count: 0, facets: [], links: { members: `${W}/states/fulfilled` } },
  ],
  transitions: [{ edge: 'open.review ESCALATE -> open.waiting_on_signer', count: 3 }],
  facets: [],
};

describe('a population read out', () => {
  it('gives an age to its two largest units', () => {
    const cases: Array<[number, string]> = [
      [0, '0 s'],
      [45, '45 s'],
      [60, '1 min'],
      [12 * 60 + 59, '12 min'],
      [3 * 3600 + 5 * 60 + 9, '3 h 5 min'],
      [3 * 3600, '3 h'],
      [2 * 86400 + 4 * 3600 + 59, '2 d 4 h'],
      [365 * 86400 + 20 * 86400 + 3600, '1 y 20 d'],
    ];
    expect(cases.map(([seconds]) => ageWords(seconds))).toEqual(cases.map(([, words]) => words));
  });

  it('draws an edge thicker the more it was taken, by logarithm, the most taken at full weight', () => {
    expect(weightOf(0, 50)).toBe('0.000');
    expect(weightOf(50, 50)).toBe('1.000');
    expect(Number(weightOf(1, 50))).toBeGreaterThan(0.15);
    expect(weightOf(1, 0)).toBe('1.000');
  });

  it('says how many, who waits where and for how long, and how to list a state', () => {
    expect(populationCaption(MATTER, POPULATION)).toBe('Matter machine: 4 Matters; a badge on each state counts those in it; waiting: 3 in open.waiting_on_signer (oldest 3 h 5 min); each transition says how many times it was taken (×n, thicker when taken more). Choose a state to list its Matters.');
    expect(populationCaption(MATTER, null)).toBe('Matter machine: none in this grain yet.');
    expect(stateLabel(MATTER, POPULATION.states[0])).toBe('open.intake: 1 Matter, the oldest there 1 min. List them');
    expect(stateLabel(MATTER, POPULATION.states[2])).toBe('fulfilled: 0 Matters. List them');
  });

  it('pages a state\'s records back and forth by the cursors the door gave', () => {
    const pages = new MemberPages();
    const members = `${W}/states/open.waiting_on_signer`;
    expect([pages.url(members), pages.page, pages.offset]).toEqual([`${members}?limit=${MEMBERS_PAGE}`, 1, 0]);
    pages.later();
    expect(pages.page).toBe(1);
    pages.next = 41;
    pages.later();
    expect([pages.url(members), pages.page, pages.offset]).toEqual([`${members}?limit=${MEMBERS_PAGE}&after=41`, 2, MEMBERS_PAGE]);
    pages.next = 77;
    pages.later();
    pages.earlier();
    expect(pages.url(members)).toBe(`${members}?limit=${MEMBERS_PAGE}&after=41`);
    pages.first();
    pages.earlier();
    expect([pages.page, pages.url(members)]).toEqual([1, `${members}?limit=${MEMBERS_PAGE}`]);
  });
});

describe('coverage and refusals in words', () => {
  it('says how much of a machine the model paths walk, and which transitions none does', () => {
    const c = { walked: 12, total: 14, refusing: { walked: 3, total: 4 }, paths: { shortest: 10, simple: 20 } };
    expect(coverageWords('Matter machine', { ...c, unwalked: ['a -> b', 'c -> d'] })).toBe('Matter machine: 12 of 14 transitions walked by 30 model paths (3 of 4 refusing edges); unwalked: a -> b; c -> d.');
    expect(coverageWords('Matter machine', { ...c, unwalked: [] })).toBe('Matter machine: 12 of 14 transitions walked by 30 model paths (3 of 4 refusing edges); none unwalked.');
    expect([walkedWords(1), walkedWords(12)]).toEqual(['· 1 path', '· 12 paths']);
  });

  it('reads a refusal as the catalog words it, and a body without words by its status', () => {
    expect(refusalWords({ error: 'Matter mt_x does not exist here', code: 'MATTER_NOT_FOUND', fix: 'GET /matters' }, 404)).toBe('Matter mt_x does not exist here Fix: GET /matters');
    expect(refusalWords({ error: 'the answer was not JSON' }, 502)).toBe('the answer was not JSON');
    expect(refusalWords(null, 500)).toBe('the service answered 500');
    expect(refusalWords({ error: 7, fix: '' }, 503)).toBe('the service answered 503');
  });
});
