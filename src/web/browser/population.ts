/**
 * The population page's script (`src/web/population.ts` serves the page). It
 * reads one door per machine, the grain's population
 * (`…/inspection/matters`, `…/inspection/deadlines`,
 * `/firms/{id}/inspection/enrollments`), and draws it on the machine's
 * generated diagram (`diagram.ts`): a count badge on every state, the oldest's
 * age under the waiting ones, how many times each transition was taken after
 * its label (and a thicker line the more it was). A state is chosen by a
 * click, or by Enter or Space on it or on its row; its records are listed a
 * page at a time, oldest first (`links.members`), each linking its inspector.
 *
 * At the top level the population is the calling key's own: the page asks for
 * the key, keeps it in the page's memory only (never stored, never in the
 * address) and sends it to this service's doors alone.
 */
import type { MembersAnswer, Population, PopulationAnswer } from './contract.ts';
import { badge, clearMarks, fetchText, fitDiagram, mountDiagram, statePathOf, suffixLines, type Diagram } from './diagram.ts';
import { $, el } from './dom.ts';
import { getJson } from './http.ts';
import { timeOf } from './inspection-view.ts';
import { ageWords, MemberPages, nounOf, populationCaption, stateLabel, weightOf, type PopulationMachine } from './population-view.ts';

const root = $('population');
const MACHINES: PopulationMachine[] = JSON.parse(root.dataset.machines ?? '[]');

/** What the page holds between events. */
interface PageState {
  /** The machine shown. */
  machine: PopulationMachine;
  /** The top level's API key, in memory only. */
  key: string | null;
  /** The population drawn (null: the grain holds none). */
  data: Population | null;
  ix: Diagram | null;
  /** The state listed. */
  chosen: string | null;
  pages: MemberPages;
  /** The diagram shrunk to its box, rather than at its actual size. */
  fit: boolean;
  /** Diagram text by URL. */
  svg: Map<string, string>;
}

const S: PageState = {
  machine: MACHINES[0],
  key: null,
  data: null,
  ix: null,
  chosen: null,
  pages: new MemberPages(),
  fit: !matchMedia('(max-width: 760px)').matches,
  svg: new Map(),
};

function problem(message: string | null): void {
  const box = $('problem');
  box.hidden = !message;
  box.textContent = message ?? '';
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const read = <T>(url: string): Promise<T> => getJson<T>(url, { key: S.key });
const nounsOf = (n: number) => nounOf(S.machine, n);
const stateOf = (path: string | null) => (S.data && path !== null ? S.data.states.find((s) => s.path === path) : undefined);

// ---------------------------------------------------------------- the diagram

/** Counts on the diagram: a badge per state, the oldest's age under the waiting ones, a count per transition. */
function drawCounts(ix: Diagram): void {
  clearMarks(ix);
  for (const g of ix.states.values()) {
    g.removeAttribute('tabindex');
    g.removeAttribute('role');
    g.removeAttribute('aria-label');
  }
  if (!S.data) return;
  // Per drawn edge, what its transitions were taken in all (a merged edge draws several).
  const taken = new Map<SVGGElement, number>();
  for (const t of S.data.transitions) {
    const d = ix.transitions.get(t.edge);
    if (!d) continue;
    taken.set(d.g, (taken.get(d.g) ?? 0) + t.count);
    if (t.count > 0) suffixLines(d, 'line-counted', `×${t.count}`);
  }
  const most = Math.max(1, ...taken.values());
  for (const [g, n] of taken) {
    if (n > 0) {
      g.classList.add('is-counted');
      g.style.setProperty('--weight', weightOf(n, most));
    } else g.classList.add('is-dim');
  }
  for (const s of S.data.states) {
    const g = ix.states.get(s.path);
    if (!g) continue;
    if (s.count === 0) g.classList.add('is-empty');
    const b = g.getBBox();
    badge(ix, b.x + b.width + 6, b.y, String(s.count), `count${s.count ? '' : ' zero'}`, 'end', g.id);
    // Who waits on someone (a tagged state) says how long its oldest has waited.
    if (s.tags.length && s.oldest) badge(ix, b.x + b.width / 2, b.y + b.height + 10, `oldest ${ageWords(s.oldest.ageSeconds)}`, 'age', 'middle', g.id);
    g.setAttribute('tabindex', '0');
    g.setAttribute('role', 'button');
    g.setAttribute('aria-label', stateLabel(S.machine, s));
  }
  if (S.chosen) ix.states.get(S.chosen)?.classList.add('is-chosen');
}

// ---------------------------------------------------------------- the panel beside it

function renderStates(data: Population | null): void {
  const body = $('states');
  if (!data) {
    body.replaceChildren();
    return;
  }
  body.replaceChildren(
    ...data.states.map((s) =>
      el('tr', { 'data-state': s.path, class: s.path === S.chosen ? 'chosen' : null },
        el('th', { scope: 'row' }, el('button', { type: 'button', class: 'link', 'data-state': s.path, 'aria-pressed': s.path === S.chosen ? 'true' : 'false' }, el('code', { text: s.path })), s.final ? el('span', { class: 'note', text: ' terminal' }) : null, s.tags.length ? el('span', { class: 'note', text: ` · ${s.tags.join(', ')}` }) : null),
        el('td', { class: 'num', text: String(s.count) }),
        el('td', {}, s.oldest ? el('span', {}, el('a', { href: s.oldest.links.inspect, text: s.oldest.id }), ' ', el('span', { class: 'age', text: ageWords(s.oldest.ageSeconds) }), el('br'), el('time', { datetime: s.oldest.since, class: 'note', text: `since ${timeOf(s.oldest.since)}` })) : el('span', { class: 'note', text: '—' })),
        data.facets.length ? el('td', { class: 'note', text: (s.facets ?? []).filter((f) => f.count).map((f) => `${f.name} ${f.count}`).join(', ') }) : null),
    ),
  );
  $('facet-head').hidden = !data.facets.length;
}

function renderSummary(data: Population | null): void {
  $('total').textContent = data ? `${data.total} ${nounsOf(data.total)}` : 'none';
  $('as-of').textContent = data ? timeOf(data.asOf) : '—';
  $('as-of').setAttribute('datetime', data ? data.asOf : '');
  const facets = $('facets');
  facets.hidden = !data?.facets.length;
  if (data) facets.replaceChildren(...data.facets.map((f) => el('li', {}, el('strong', { text: `${f.name} ${f.count}` }), ' ', el('span', { class: 'note', text: f.description }))));
  $('transitions').replaceChildren(...(data ? data.transitions : []).map((t) => el('tr', {}, el('td', {}, el('code', { text: t.edge })), el('td', { class: 'num', text: String(t.count) }))));
}

// ---------------------------------------------------------------- one state's records

async function listPage(): Promise<void> {
  const s = stateOf(S.chosen);
  if (!s) return;
  const answer = await read<MembersAnswer>(S.pages.url(s.links.members));
  const members = answer.type === 'OK' ? answer.results : [];
  const first = S.pages.offset;
  $('members-h').textContent = `${s.path}: ${s.count} ${nounsOf(s.count)}, oldest first`;
  const list = $('members');
  list.setAttribute('start', String(first + 1));
  list.replaceChildren(
    ...members.map((m) =>
      el('li', { 'data-id': m.id },
        el('a', { href: m.links.inspect, text: m.id }), ' ',
        el('span', { class: 'age', text: ageWords(m.ageSeconds) }), ' ',
        el('time', { datetime: m.since, class: 'note', text: `since ${timeOf(m.since)}` }),
        el('span', { class: 'note', text: ` · version ${m.version}` })),
    ),
  );
  if (!members.length) list.append(el('li', { class: 'note', text: (answer.type === 'EMPTY' && answer.message) || 'none' }));
  $('members-info').textContent = members.length ? `${S.machine.nouns} ${first + 1}–${first + members.length} of ${s.count}` : '';
  S.pages.next = answer.type === 'OK' ? answer.nextAfter : null;
  $('members-first', HTMLButtonElement).disabled = S.pages.page === 1;
  $('members-earlier', HTMLButtonElement).disabled = S.pages.page === 1;
  $('members-later', HTMLButtonElement).disabled = S.pages.next === null;
  $('members-panel').hidden = false;
  root.dataset.listed = s.path;
  root.dataset.listPage = String(S.pages.page);
}

/** Chooses a state: its records listed from the first page, the state marked, the address saying so. */
async function choose(path: string, { focusList = false } = {}): Promise<void> {
  if (!stateOf(path) || !S.ix) return;
  S.chosen = path;
  S.pages.first();
  for (const g of S.ix.svg.querySelectorAll('g.is-chosen')) g.classList.remove('is-chosen');
  S.ix.states.get(path)?.classList.add('is-chosen');
  for (const b of $('states').querySelectorAll<HTMLElement>('button[data-state]')) b.setAttribute('aria-pressed', String(b.dataset.state === path));
  for (const tr of $('states').querySelectorAll('tr')) tr.classList.toggle('chosen', tr.dataset.state === path);
  setAddress();
  try {
    await listPage();
    if (focusList) $('members-h').focus();
  } catch (error) {
    problem(messageOf(error));
  }
}

async function movePage(move: (pages: MemberPages) => void): Promise<void> {
  move(S.pages);
  try {
    await listPage();
  } catch (error) {
    problem(messageOf(error));
  }
}

// ---------------------------------------------------------------- a machine

function setAddress(): void {
  const url = new URL(location.href);
  url.searchParams.set('machine', S.machine.kind);
  if (S.chosen) url.searchParams.set('state', S.chosen);
  else url.searchParams.delete('state');
  history.replaceState(null, '', url);
}

function applyZoom(): void {
  if (!S.ix) return;
  fitDiagram(S.ix, S.fit);
  $('zoom').setAttribute('aria-pressed', S.fit ? 'false' : 'true');
}

/** Reads and draws one machine's population; keeps the chosen state when it is still one of its states. */
async function show(kind: string | null, state: string | null): Promise<void> {
  root.dataset.ready = 'false';
  problem(null);
  const m = MACHINES.find((x) => x.kind === kind) ?? MACHINES[0];
  const switched = S.machine.kind !== m.kind;
  S.machine = m;
  for (const b of document.querySelectorAll<HTMLElement>('#machines button')) b.setAttribute('aria-pressed', String(b.dataset.kind === m.kind));
  for (const e of document.querySelectorAll('.noun')) e.textContent = m.nouns;
  $('data-link', HTMLAnchorElement).href = m.data;
  const svg = S.svg.get(m.diagram) ?? (await fetchText(m.diagram));
  S.svg.set(m.diagram, svg);
  const answer = await read<PopulationAnswer>(m.data);
  S.data = answer.type === 'OK' ? answer.population : null;
  $('empty').hidden = !!S.data;
  $('empty').textContent = answer.type === 'OK' ? '' : answer.message || 'none yet';
  if (switched || !S.ix) {
    S.ix = mountDiagram($('diagram'), svg, 'diagram-caption');
    // The states are buttons here: the drawing is a group of them, not one picture.
    S.ix.svg.setAttribute('role', 'group');
    applyZoom();
  }
  S.chosen = state && stateOf(state) ? state : null;
  if (!S.chosen) $('members-panel').hidden = true;
  drawCounts(S.ix);
  $('diagram-caption').textContent = populationCaption(m, S.data);
  renderSummary(S.data);
  renderStates(S.data);
  setAddress();
  if (S.chosen) await choose(S.chosen);
  root.dataset.machine = m.kind;
  root.dataset.ready = 'true';
  performance.mark('population:drawn');
}

/** Shows a machine; a failure is said on the page. */
const showOrSay = (kind: string | null, state: string | null) =>
  show(kind, state).catch((error: unknown) => {
    problem(messageOf(error));
    root.dataset.ready = 'failed';
  });

/** The state a click or a key on the diagram chose, if any. */
const stateButton = (target: EventTarget | null) => (target instanceof Element ? target.closest('g.state[role=button]') : null);

$('diagram').addEventListener('click', (event) => {
  const g = stateButton(event.target);
  if (g) void choose(statePathOf(g));
});
$('diagram').addEventListener('keydown', (event) => {
  const g = stateButton(event.target);
  if (!g || (event.key !== 'Enter' && event.key !== ' ')) return;
  event.preventDefault();
  void choose(statePathOf(g), { focusList: true });
});
$('states').addEventListener('click', (event) => {
  const b = event.target instanceof Element ? event.target.closest<HTMLElement>('button[data-state]') : null;
  if (b?.dataset.state) void choose(b.dataset.state, { focusList: true });
});
for (const b of document.querySelectorAll<HTMLElement>('#machines button')) b.addEventListener('click', () => void showOrSay(b.dataset.kind ?? null, null));
$('members-first').addEventListener('click', () => void movePage((pages) => pages.first()));
$('members-earlier').addEventListener('click', () => void movePage((pages) => pages.earlier()));
$('members-later').addEventListener('click', () => void movePage((pages) => pages.later()));
$('refresh').addEventListener('click', () => void show(S.machine.kind, S.chosen).catch((error: unknown) => problem(messageOf(error))));
$('zoom').addEventListener('click', () => {
  S.fit = !S.fit;
  applyZoom();
});
const keyForm = document.getElementById('key-form');
keyForm?.addEventListener('submit', (event) => {
  event.preventDefault();
  const key = $('key', HTMLInputElement);
  S.key = key.value.trim() || null;
  key.value = '';
  $('key-state').textContent = S.key ? 'Counting the records of the key you gave (kept in this page only).' : 'No key: the top level counts nothing without one.';
  void show(S.machine.kind, S.chosen).catch((error: unknown) => problem(messageOf(error)));
});

const asked = new URL(location.href).searchParams;
void showOrSay(asked.get('machine'), asked.get('state'));
