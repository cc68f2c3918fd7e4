/**
 * The population page's script (run in the browser, under the page's nonce).
 * It reads one door per machine, the grain's population
 * (`…/inspection/matters`, `…/inspection/deadlines`,
 * `/firms/{id}/inspection/enrollments`), and draws it on the machine's
 * generated diagram with the helpers every diagram page shares
 * (`diagram-script.ts`): a count badge on every state, the oldest's age under
 * the waiting ones, how many times each transition was taken after its label
 * (and a thicker line the more it was). A state is chosen by a click, or by
 * Enter or Space on it or on its row; its records are listed a page at a time,
 * oldest first (`links.members`), each linking its inspector.
 *
 * At the top level the population is the calling key's own: the page asks for
 * the key, keeps it in the page's memory only (never stored, never in the
 * address) and sends it to this service's doors alone.
 */
import { DIAGRAM_SCRIPT } from './diagram-script.ts';

/** Records listed per page of a state. */
export const MEMBERS_PAGE = 20;

export const POPULATION_SCRIPT = String.raw`
'use strict';
${DIAGRAM_SCRIPT}
const PAGE = ${MEMBERS_PAGE};
const root = $('population');
const MACHINES = JSON.parse(root.dataset.machines);

const S = {
  machine: null,   // the entry of MACHINES shown
  key: null,       // the top level's API key, in memory only
  data: null,      // the population drawn (null: the grain holds none)
  ix: null,
  chosen: null,    // the state listed
  cursors: [],     // the 'after' of each page listed so far (back and forth)
  fit: !matchMedia('(max-width: 760px)').matches,
  svg: new Map(),  // diagram text by URL
};

function problem(message) {
  const box = $('problem');
  box.hidden = !message;
  box.textContent = message || '';
}

async function getJson(url) {
  const headers = { accept: 'application/json' };
  if (S.key) headers.authorization = 'Bearer ' + S.key;
  const res = await fetch(url, { headers });
  const body = await res.json().catch(() => ({ error: 'the answer was not JSON' }));
  if (!res.ok) throw new Error((body.error || 'the service answered ' + res.status) + (body.fix ? ' Fix: ' + body.fix : ''));
  return body;
}

/** An age in words, to the two largest units: 45 s, 12 min, 3 h 5 min, 2 d 4 h, 1 y 20 d. */
function ageWords(seconds) {
  const units = [['y', 365 * 86400], ['d', 86400], ['h', 3600], ['min', 60], ['s', 1]];
  const i = units.findIndex(([, size]) => seconds >= size);
  if (i < 0) return '0 s';
  const [big, size] = units[i];
  const first = Math.floor(seconds / size);
  const next = units[i + 1];
  const rest = next && big !== 'min' ? Math.floor((seconds - first * size) / next[1]) : 0;
  return first + ' ' + big + (rest ? ' ' + rest + ' ' + next[0] : '');
}

const timeOf = (iso) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '');
const nounOf = (n) => (n === 1 ? S.machine.noun : S.machine.nouns);
const stateOf = (path) => (S.data ? S.data.states.find((s) => s.path === path) : null);

// ---------------------------------------------------------------- the diagram

/** Counts on the diagram: a badge per state, the oldest's age under the waiting ones, a count per transition. */
function drawCounts() {
  const ix = S.ix;
  clearMarks(ix);
  for (const g of ix.states.values()) { g.removeAttribute('tabindex'); g.removeAttribute('role'); g.removeAttribute('aria-label'); }
  if (!S.data) return;
  // Per drawn edge, what its transitions were taken in all (a merged edge draws several).
  const taken = new Map();
  for (const t of S.data.transitions) {
    const d = ix.transitions.get(t.edge);
    if (!d) continue;
    taken.set(d.g, (taken.get(d.g) || 0) + t.count);
    if (t.count > 0) suffixLines(d, 'line-counted', '×' + t.count);
  }
  const most = Math.max(1, ...taken.values());
  for (const [g, n] of taken) {
    if (n > 0) { g.classList.add('is-counted'); g.style.setProperty('--weight', (Math.log1p(n) / Math.log1p(most)).toFixed(3)); }
    else g.classList.add('is-dim');
  }
  for (const s of S.data.states) {
    const g = ix.states.get(s.path);
    if (!g) continue;
    if (s.count === 0) g.classList.add('is-empty');
    const b = g.getBBox();
    badge(ix, b.x + b.width + 6, b.y, String(s.count), 'count' + (s.count ? '' : ' zero'), 'end', g.id);
    // Who waits on someone (a tagged state) says how long its oldest has waited.
    if (s.tags.length && s.oldest) badge(ix, b.x + b.width / 2, b.y + b.height + 10, 'oldest ' + ageWords(s.oldest.ageSeconds), 'age', 'middle', g.id);
    g.setAttribute('tabindex', '0');
    g.setAttribute('role', 'button');
    g.setAttribute('aria-label', s.path + ': ' + s.count + ' ' + nounOf(s.count) + (s.oldest ? ', the oldest there ' + ageWords(s.oldest.ageSeconds) : '') + '. List them');
  }
  if (S.chosen) { const g = ix.states.get(S.chosen); if (g) g.classList.add('is-chosen'); }
}

function describe() {
  const m = S.machine;
  if (!S.data) { $('diagram-caption').textContent = m.title + ' machine: none in this grain yet.'; return; }
  const waiting = S.data.states.filter((s) => s.tags.length && s.oldest).map((s) => s.count + ' in ' + s.path + ' (oldest ' + ageWords(s.oldest.ageSeconds) + ')');
  $('diagram-caption').textContent = m.title + ' machine: ' + S.data.total + ' ' + nounOf(S.data.total) + '; a badge on each state counts those in it' + (waiting.length ? '; waiting: ' + waiting.join(', ') : '') + '; each transition says how many times it was taken (×n, thicker when taken more). Choose a state to list its ' + m.nouns + '.';
}

// ---------------------------------------------------------------- the panel beside it

function renderStates() {
  const body = $('states');
  if (!S.data) { body.replaceChildren(); return; }
  body.replaceChildren(...S.data.states.map((s) => el('tr', { 'data-state': s.path, class: s.path === S.chosen ? 'chosen' : null },
    el('th', { scope: 'row' }, el('button', { type: 'button', class: 'link', 'data-state': s.path, 'aria-pressed': s.path === S.chosen ? 'true' : 'false' }, el('code', { text: s.path })), s.final ? el('span', { class: 'note', text: ' terminal' }) : null, s.tags.length ? el('span', { class: 'note', text: ' · ' + s.tags.join(', ') }) : null),
    el('td', { class: 'num', text: String(s.count) }),
    el('td', {}, s.oldest ? el('span', {}, el('a', { href: s.oldest.links.inspect, text: s.oldest.id }), ' ', el('span', { class: 'age', text: ageWords(s.oldest.ageSeconds) }), el('br'), el('time', { datetime: s.oldest.since, class: 'note', text: 'since ' + timeOf(s.oldest.since) })) : el('span', { class: 'note', text: '—' })),
    S.data.facets.length ? el('td', { class: 'note', text: (s.facets || []).filter((f) => f.count).map((f) => f.name + ' ' + f.count).join(', ') }) : null)));
  $('facet-head').hidden = !S.data.facets.length;
}

function renderSummary() {
  $('total').textContent = S.data ? S.data.total + ' ' + nounOf(S.data.total) : 'none';
  $('as-of').textContent = S.data ? timeOf(S.data.asOf) : '—';
  $('as-of').setAttribute('datetime', S.data ? S.data.asOf : '');
  const facets = $('facets');
  facets.hidden = !(S.data && S.data.facets.length);
  if (S.data) facets.replaceChildren(...S.data.facets.map((f) => el('li', {}, el('strong', { text: f.name + ' ' + f.count }), ' ', el('span', { class: 'note', text: f.description }))));
  const list = $('transitions');
  list.replaceChildren(...(S.data ? S.data.transitions : []).map((t) => el('tr', {}, el('td', {}, el('code', { text: t.edge })), el('td', { class: 'num', text: String(t.count) }))));
}

// ---------------------------------------------------------------- one state's records

async function listPage() {
  const s = stateOf(S.chosen);
  const after = S.cursors[S.cursors.length - 1];
  const url = s.links.members + '?limit=' + PAGE + (after ? '&after=' + after : '');
  const answer = await getJson(url);
  const members = answer.results || [];
  const first = (S.cursors.length - 1) * PAGE;
  $('members-h').textContent = s.path + ': ' + s.count + ' ' + nounOf(s.count) + ', oldest first';
  $('members').setAttribute('start', String(first + 1));
  $('members').replaceChildren(...members.map((m) => el('li', { 'data-id': m.id },
    el('a', { href: m.links.inspect, text: m.id }), ' ',
    el('span', { class: 'age', text: ageWords(m.ageSeconds) }), ' ',
    el('time', { datetime: m.since, class: 'note', text: 'since ' + timeOf(m.since) }),
    el('span', { class: 'note', text: ' · version ' + m.version }))));
  if (!members.length) $('members').append(el('li', { class: 'note', text: answer.message || 'none' }));
  $('members-info').textContent = members.length ? S.machine.nouns + ' ' + (first + 1) + '–' + (first + members.length) + ' of ' + s.count : '';
  S.next = answer.nextAfter === undefined ? null : answer.nextAfter;
  $('members-first').disabled = S.cursors.length === 1;
  $('members-earlier').disabled = S.cursors.length === 1;
  $('members-later').disabled = S.next === null;
  $('members-panel').hidden = false;
  root.dataset.listed = s.path;
  root.dataset.listPage = String(S.cursors.length);
}

/** Chooses a state: its records listed from the first page, the state marked, the address saying so. */
async function choose(path, { focusList = false } = {}) {
  if (!stateOf(path)) return;
  S.chosen = path;
  S.cursors = [0];
  for (const g of S.ix.svg.querySelectorAll('g.is-chosen')) g.classList.remove('is-chosen');
  const g = S.ix.states.get(path);
  if (g) g.classList.add('is-chosen');
  for (const b of $('states').querySelectorAll('button[data-state]')) b.setAttribute('aria-pressed', String(b.dataset.state === path));
  for (const tr of $('states').querySelectorAll('tr')) tr.classList.toggle('chosen', tr.dataset.state === path);
  setAddress();
  try {
    await listPage();
    if (focusList) $('members-h').focus();
  } catch (error) { problem(error.message); }
}

async function movePage(to) {
  if (to === 'first') S.cursors = [0];
  else if (to === 'earlier' && S.cursors.length > 1) S.cursors.pop();
  else if (to === 'later' && S.next !== null) S.cursors.push(S.next);
  try { await listPage(); } catch (error) { problem(error.message); }
}

// ---------------------------------------------------------------- a machine

function setAddress() {
  const url = new URL(location.href);
  url.searchParams.set('machine', S.machine.kind);
  if (S.chosen) url.searchParams.set('state', S.chosen); else url.searchParams.delete('state');
  history.replaceState(null, '', url);
}

function applyZoom() {
  if (!S.ix) return;
  fitDiagram(S.ix, S.fit);
  $('zoom').setAttribute('aria-pressed', S.fit ? 'false' : 'true');
}

/** Reads and draws one machine's population; keeps the chosen state when it is still one of its states. */
async function show(kind, state) {
  root.dataset.ready = 'false';
  problem(null);
  const m = MACHINES.find((x) => x.kind === kind) || MACHINES[0];
  const switched = !S.machine || S.machine.kind !== m.kind;
  S.machine = m;
  for (const b of document.querySelectorAll('#machines button')) b.setAttribute('aria-pressed', String(b.dataset.kind === m.kind));
  for (const e of document.querySelectorAll('.noun')) e.textContent = m.nouns;
  $('data-link').href = m.data;
  if (!S.svg.has(m.diagram)) S.svg.set(m.diagram, await fetchText(m.diagram));
  const answer = await getJson(m.data);
  S.data = answer.type === 'OK' ? answer.population : null;
  $('empty').hidden = !!S.data;
  $('empty').textContent = S.data ? '' : answer.message || 'none yet';
  if (switched || !S.ix) {
    S.ix = mountDiagram($('diagram'), S.svg.get(m.diagram), 'diagram-caption');
    // The states are buttons here: the drawing is a group of them, not one picture.
    S.ix.svg.setAttribute('role', 'group');
    applyZoom();
  }
  S.chosen = state && stateOf(state) ? state : null;
  if (!S.chosen) $('members-panel').hidden = true;
  drawCounts();
  describe();
  renderSummary();
  renderStates();
  setAddress();
  if (S.chosen) await choose(S.chosen);
  root.dataset.machine = m.kind;
  root.dataset.ready = 'true';
  performance.mark('population:drawn');
}

function onDiagramKey(event) {
  const g = event.target.closest && event.target.closest('g.state[role=button]');
  if (!g || (event.key !== 'Enter' && event.key !== ' ')) return;
  event.preventDefault();
  void choose(g.id.slice(NAMES.state.length), { focusList: true });
}

$('diagram').addEventListener('click', (event) => {
  const g = event.target.closest('g.state[role=button]');
  if (g) void choose(g.id.slice(NAMES.state.length));
});
$('diagram').addEventListener('keydown', onDiagramKey);
$('states').addEventListener('click', (event) => {
  const b = event.target.closest('button[data-state]');
  if (b) void choose(b.dataset.state, { focusList: true });
});
for (const b of document.querySelectorAll('#machines button')) b.addEventListener('click', () => void show(b.dataset.kind, null).catch((e) => { problem(e.message); root.dataset.ready = 'failed'; }));
$('members-first').addEventListener('click', () => void movePage('first'));
$('members-earlier').addEventListener('click', () => void movePage('earlier'));
$('members-later').addEventListener('click', () => void movePage('later'));
$('refresh').addEventListener('click', () => void show(S.machine.kind, S.chosen).catch((e) => problem(e.message)));
$('zoom').addEventListener('click', () => { S.fit = !S.fit; applyZoom(); });
const keyForm = $('key-form');
if (keyForm) keyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  S.key = $('key').value.trim() || null;
  $('key').value = '';
  $('key-state').textContent = S.key ? 'Counting the records of the key you gave (kept in this page only).' : 'No key: the top level counts nothing without one.';
  void show(S.machine.kind, S.chosen).catch((e) => problem(e.message));
});

const asked = new URL(location.href).searchParams;
show(asked.get('machine'), asked.get('state')).catch((error) => { problem(error.message); root.dataset.ready = 'failed'; });
`;
