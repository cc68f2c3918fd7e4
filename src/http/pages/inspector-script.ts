/**
 * The inspector page's script (run in the browser, under the page's nonce).
 * It reads only public doors: the entity's inspection (`…/inspection`, and
 * `?at=<seq>` for time travel), the generated SVG, and the grain's event
 * stream (or, where the stream needs a key the page does not have, the
 * inspection again every few seconds, said on the page).
 *
 * The diagram is the generated SVG inlined, its elements found by the names
 * the generator gives them (`src/diagrams/names.ts`): marks are classes
 * toggled on those elements (`is-current`, `is-visited`, `is-taken`,
 * `is-open`, `is-refused`, `is-dim`) and a badge layer drawn over them, with
 * the helpers every diagram page shares (`diagram-script.ts`); the model
 * tests' coverage is drawn the same way, on demand.
 */
import { SSE_EVENT_NAME } from '../../domain/sse-wire.ts';
import { DIAGRAM_SCRIPT } from './diagram-script.ts';

/** Facts shown per timeline page: a Matter with thousands of facts renders one page at a time. */
export const TIMELINE_PAGE = 50;
/** How often a page that cannot follow the event stream reads the inspection again. */
export const POLL_MS = 5_000;
/** Inspections as of a fact kept in the page, so moving back and forth through the timeline does not refetch. */
const CACHED_VIEWS = 64;

export const INSPECTOR_SCRIPT = String.raw`
'use strict';
${DIAGRAM_SCRIPT}
const SSE_EVENT = ${JSON.stringify(SSE_EVENT_NAME)};
const PAGE = ${TIMELINE_PAGE};
const POLL_MS = ${POLL_MS};
const CACHED = ${CACHED_VIEWS};

const root = $('inspector');
const doors = { inspection: root.dataset.inspection, diagram: root.dataset.diagram };

const S = {
  latest: null,      // the inspection at the head: its path is the whole timeline
  view: null,        // the inspection drawn now (the head's, or one as of a fact)
  pinned: null,      // the seq the reviewer chose, or null: following the head
  page: 0,
  cache: new Map(),  // seq -> inspection as of it
  loading: null,     // AbortController of the view being fetched
  ix: null,          // the inlined diagram, its elements by name (mountDiagram)
  coverage: false,   // drawing the model tests' coverage rather than the entity
  fit: !matchMedia('(max-width: 760px)').matches,
};

// ---------------------------------------------------------------- helpers

async function getJson(url, signal) {
  const res = await fetch(url, { headers: { accept: 'application/json' }, signal });
  const body = await res.json().catch(() => ({ error: 'the answer was not JSON' }));
  if (!res.ok) {
    const err = new Error((body.error || 'the service answered ' + res.status) + (body.fix ? ' Fix: ' + body.fix : ''));
    err.status = res.status;
    throw err;
  }
  return body.inspection || body;
}

const withAt = (seq) => doors.inspection + (seq === null ? '' : '?at=' + seq);
const timeOf = (iso) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '');
const stepsOf = (insp) => insp.path || [];

function announce(text) { $('announce').textContent = text; }
function fail(error) {
  const box = $('problem');
  box.hidden = false;
  box.textContent = error.message;
}

// ---------------------------------------------------------------- the diagram

function mount(text) {
  S.ix = mountDiagram($('diagram'), text, 'diagram-caption');
  applyZoom();
}

function applyZoom() {
  if (!S.ix) return;
  fitDiagram(S.ix, S.fit);
  $('zoom').setAttribute('aria-pressed', S.fit ? 'false' : 'true');
  revealCurrent();
}

/** Step numbers as one short label: a loop walked hundreds of times stays one badge. */
function stepsLabel(steps) {
  if (steps.length <= 3) return steps.join(', ');
  return steps[0] + ', ' + steps[1] + ' … ' + steps[steps.length - 1] + ' (' + steps.length + '×)';
}

/** The scopes whose start arrows lead into a state, outermost first: the root's, then each compound's above it. */
function startScopes(path) {
  const parts = path.split('.');
  const scopes = [''];
  for (let i = 1; i < parts.length; i++) scopes.push(parts.slice(0, i).join('.'));
  return scopes;
}

function ancestorsOf(path) {
  const parts = path.split('.');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('.'));
}

function drawMarks(insp) {
  clearMarks(S.ix);
  const ix = S.ix;
  const numbered = new Map(); // element -> step numbers
  const visited = new Set();
  const number = (g, step) => { if (!g) return; if (!numbered.has(g)) numbered.set(g, []); numbered.get(g).push(step); };
  for (const s of stepsOf(insp)) {
    if (s.to) visited.add(s.to);
    if (s.transitions && s.transitions.length) {
      for (const key of s.transitions) {
        const t = ix.transitions.get(key);
        if (!t) continue;
        t.g.classList.add('is-taken');
        markLines(t, 'line-taken');
        number(t.g, s.step);
      }
    } else if (s.from === null && s.to) {
      // The opening: the start arrows into its first state; the innermost carries the number.
      const arrows = startScopes(s.to).map((scope) => ix.initialEdges.get(scope)).filter(Boolean);
      for (const g of arrows) g.classList.add('is-taken');
      number(arrows[arrows.length - 1], s.step);
    } else if (s.to) {
      number(ix.states.get(s.to), s.step);
    }
  }
  for (const path of visited) { const g = ix.states.get(path); if (g) g.classList.add('is-visited'); }
  const open = new Set((insp.open || []).flatMap((o) => o.transitions || []));
  const refused = new Set((insp.refused || []).flatMap((r) => r.transitions || []));
  for (const [key, t] of ix.transitions) {
    if (open.has(key)) { t.g.classList.add('is-open'); markLines(t, 'line-open', '▶'); }
    else if (refused.has(key)) { t.g.classList.add('is-refused'); markLines(t, 'line-refused', '✕'); }
  }
  // An edge is faded only when nothing it draws is taken or open (a merged edge can hold both kinds).
  for (const [, t] of ix.transitions) {
    const c = t.g.classList;
    if (c.contains('is-open') || c.contains('is-taken')) c.remove('is-refused');
    else if (!c.contains('is-refused')) c.add('is-dim');
  }
  for (const [g, steps] of numbered) {
    // Beside the arrow's middle, on the side away from its label, so the badge never covers the words.
    const m = midOf(g);
    const text = stepsLabel(steps);
    const labels = [...g.querySelectorAll(':scope > text')];
    let x = m.x;
    if (labels.length) {
      const box = labels.map((t) => t.getBBox()).reduce((a, b) => ({ x1: Math.min(a.x1, b.x), x2: Math.max(a.x2, b.x + b.width) }), { x1: Infinity, x2: -Infinity });
      const away = (box.x1 + box.x2) / 2 > m.x ? -1 : 1;
      x = m.x + away * (Math.max(14, text.length * 6 + 8) / 2 + 3);
    }
    badge(ix, x, m.y, text, 'step', 'middle', g.id);
  }
  const current = ix.states.get(insp.state.path);
  if (current) {
    current.classList.add('is-current');
    for (const a of ancestorsOf(insp.state.path)) { const g = ix.states.get(a); if (g) g.classList.add('is-within'); }
    const b = current.getBBox();
    const ring = svgEl('g', { class: 'now' });
    for (const pad of [4, 8]) ring.append(svgEl('rect', { x: b.x - pad, y: b.y - pad, width: b.width + 2 * pad, height: b.height + 2 * pad, rx: 6 + pad }));
    ix.overlay.append(ring);
    // A tab on the ring's top left corner: the words say which state, not only its outline.
    badge(ix, b.x - 10, b.y - 10, insp.at.latest ? 'now' : 'as of #' + insp.at.seq, 'now-label', 'start', current.id);
  }
  revealCurrent();
}

/** Scrolls the diagram's own box (never the window) so the current state is in view. */
function revealCurrent() {
  revealIn(S.ix, S.ix.svg.querySelector('g.is-current'));
}

function describe(insp) {
  const opens = (insp.open || []).map((o) => o.command);
  const steps = stepsOf(insp).length;
  const as = insp.at.latest ? 'now' : 'as of fact #' + insp.at.seq;
  $('diagram-caption').textContent = S.title + ' diagram: ' + as + ' in ' + insp.state.status + ' (' + insp.state.path + ')' + (insp.state.final ? ', a terminal' : '') + '; ' + steps + ' step' + (steps === 1 ? '' : 's') + ' numbered on its path; ' + (opens.length ? 'open: ' + opens.join(', ') : 'no door open') + '; ' + (insp.refused || []).length + ' commands refused.';
}

/** The model tests' coverage of this machine (visualizations/<machine>.coverage.json), as the page was served with it. */
const COVERAGE = root.dataset.coverage ? JSON.parse(root.dataset.coverage) : null;

/** Draws what the reviewer asked for: the entity as of the fact shown, or the machine's model coverage. */
function redraw() {
  if (S.coverage && COVERAGE) {
    const drawn = drawCoverage(S.ix, COVERAGE);
    $('diagram-caption').textContent = 'Model coverage (not this ' + S.title + '): ' + coverageWords(S.title + ' machine', drawn);
    root.dataset.drawn = 'coverage';
  } else if (S.view) {
    drawMarks(S.view);
    describe(S.view);
    root.dataset.drawn = 'inspection';
  }
  $('legend-inspection').hidden = S.coverage;
  $('legend-coverage').hidden = !S.coverage;
}

// ---------------------------------------------------------------- the panel beside it

function renderNow(insp) {
  $('state-name').textContent = insp.state.status;
  $('state-path').textContent = insp.state.path;
  $('state-final').textContent = insp.state.final ? 'terminal: no command moves it again' : '';
  $('state-tags').textContent = (insp.state.tags || []).join(', ') || 'none';
  const head = S.latest ? S.latest.head : insp.head;
  $('as-of').textContent = insp.at.latest ? 'the head (fact #' + insp.at.seq + ', version ' + insp.at.version + ')' : 'fact #' + insp.at.seq + ' (version ' + insp.at.version + ' of ' + head.version + ')';
  const mode = $('mode');
  mode.textContent = insp.at.latest ? 'now' : 'time travel';
  mode.className = 'pill ' + (insp.at.latest ? 'ok' : 'warn');
  $('back').disabled = S.pinned === null;
  if (S.pinned === null) $('back').textContent = 'Back to now';
  // One line a door; what to send, the edges it takes and the refusal's words open beneath it.
  const open = $('open-list');
  open.replaceChildren(...(insp.open || []).map((o) => el('li', {}, el('details', {},
    el('summary', {}, el('span', { 'aria-hidden': 'true', text: '▶ ' }), el('strong', { text: o.command }), ' ', el('code', { text: (o.sends || []).join(', ') })),
    el('p', {}, el('code', { text: o.method + ' ' + (o.href || o.door) })),
    o.note ? el('p', { class: 'note', text: o.note }) : null,
    o.transitions && o.transitions.length ? el('p', { class: 'edges', text: o.transitions.join('; ') }) : null,
    o.body ? el('pre', { tabindex: '0', text: JSON.stringify(o.body, null, 2) }) : null))));
  if (!open.children.length) open.append(el('li', { class: 'note', text: 'none: ' + (insp.state.final ? 'a terminal is forever' : 'every command is refused now') }));
  $('open-count').textContent = String((insp.open || []).length);
  const refused = $('refused-list');
  refused.replaceChildren(...(insp.refused || []).map((r) => el('li', {}, el('details', {},
    el('summary', {}, el('span', { 'aria-hidden': 'true', text: '✕ ' }), el('strong', { text: r.command }), ' ', el('code', { text: r.status + ' ' + r.code })),
    el('p', { text: r.error }), r.fix ? el('p', { class: 'note', text: 'Fix: ' + r.fix }) : null, r.rule ? el('p', { class: 'note', text: 'Rule: ' + r.rule }) : null,
    el('p', {}, el('code', { text: r.method + ' ' + (r.href || r.door) })),
    r.note ? el('p', { class: 'note', text: r.note }) : null,
    r.body ? el('pre', { tabindex: '0', text: JSON.stringify(r.body, null, 2) }) : null))));
  $('refused-count').textContent = String((insp.refused || []).length);
}

// ---------------------------------------------------------------- the timeline

function provenanceText(p) {
  if (!p || typeof p !== 'object' || !Object.keys(p).length) return '';
  return Object.entries(p).map(([k, v]) => k + ': ' + (typeof v === 'string' ? v : JSON.stringify(v))).join('; ');
}

function factItem(s, selected) {
  const pick = el('button', { type: 'button', class: 'pick', 'data-seq': s.seq, 'aria-pressed': selected ? 'true' : 'false', tabindex: selected ? '0' : '-1' },
    el('span', { class: 'seq', text: '#' + s.seq }), ' ', el('span', { class: 'kind', text: s.kind + (s.verb ? ' · ' + s.verb : '') }));
  const facts = el('dl', { class: 'facts' });
  const row = (label, value) => { if (value === undefined || value === null || value === '') return; facts.append(el('dt', { text: label }), el('dd', { text: String(value) })); };
  row('step', s.step + (s.event ? ' · ' + s.event : '') + (s.to ? ' → ' + s.to : ''));
  row('by', s.by);
  row('actor', s.actor);
  row('Gig', s.gigId);
  row('Signer', s.signer);
  row('provenance', provenanceText(s.provenance));
  const payload = { note: s.note, transitions: s.transitions, data: s.data };
  return el('li', { class: 'fact' + (selected ? ' selected' : ''), 'data-seq': s.seq },
    el('div', { class: 'fact-head' }, pick, el('time', { datetime: s.at, text: timeOf(s.at) })),
    facts,
    el('details', {}, el('summary', { text: 'payload' }), el('pre', { tabindex: '0', text: JSON.stringify(payload, null, 2) })));
}

const allSteps = () => (S.latest ? stepsOf(S.latest) : []);
const pages = () => Math.max(1, Math.ceil(allSteps().length / PAGE));
const selectedSeq = () => (S.pinned === null ? (S.latest ? S.latest.head.seq : null) : S.pinned);
const pageOfSeq = (seq) => { const i = allSteps().findIndex((s) => s.seq === seq); return i < 0 ? pages() - 1 : Math.floor(i / PAGE); };

function renderTimeline() {
  const steps = allSteps();
  S.page = Math.min(Math.max(0, S.page), pages() - 1);
  const from = S.page * PAGE;
  const shown = steps.slice(from, from + PAGE);
  const chosen = selectedSeq();
  const list = $('timeline');
  list.replaceChildren(...shown.map((s) => factItem(s, s.seq === chosen)));
  // One stop in the tab order: the chosen fact, or the page's last when the chosen one is on another page.
  if (!list.querySelector('.pick[tabindex="0"]') && list.lastElementChild) list.lastElementChild.querySelector('.pick').setAttribute('tabindex', '0');
  $('page-info').textContent = steps.length ? 'facts ' + (from + 1) + '–' + (from + shown.length) + ' of ' + steps.length : 'no facts';
  $('earlier').disabled = S.page === 0;
  $('later').disabled = S.page >= pages() - 1;
  $('first').disabled = S.page === 0;
  $('last').disabled = S.page >= pages() - 1;
}

function focusSeq(seq) {
  const b = $('timeline').querySelector('.pick[data-seq="' + seq + '"]');
  if (b) { b.focus(); b.scrollIntoView({ block: 'nearest' }); }
}

/** Chooses a fact: the diagram shows the entity as of it (the head's fact means following the head again). */
async function choose(seq, { focus = true } = {}) {
  const head = S.latest.head.seq;
  S.pinned = seq === head ? null : seq;
  S.page = pageOfSeq(seq);
  renderTimeline();
  if (focus) focusSeq(seq);
  const url = new URL(location.href);
  if (S.pinned === null) url.searchParams.delete('at'); else url.searchParams.set('at', String(seq));
  history.replaceState(null, '', url);
  await show(S.pinned);
}

async function viewAt(seq) {
  if (seq === null) return S.latest;
  if (S.cache.has(seq)) { const v = S.cache.get(seq); S.cache.delete(seq); S.cache.set(seq, v); return v; }
  if (S.loading) S.loading.abort();
  const ctrl = (S.loading = new AbortController());
  const insp = await getJson(withAt(seq), ctrl.signal);
  S.cache.set(seq, insp);
  if (S.cache.size > CACHED) S.cache.delete(S.cache.keys().next().value);
  return insp;
}

async function show(seq) {
  const figure = $('figure');
  figure.setAttribute('aria-busy', 'true');
  try {
    const insp = await viewAt(seq);
    if (seq !== S.pinned) return; // the reviewer moved on meanwhile
    if (seq !== null && insp.at.seq !== seq) {
      // A seq between this entity's facts (a link's ?at=) shows the fact at or before it: choose that one.
      S.pinned = insp.at.latest ? null : insp.at.seq;
      S.page = pageOfSeq(insp.at.seq);
      renderTimeline();
    }
    S.view = insp;
    redraw();
    renderNow(insp);
    root.dataset.viewSeq = String(insp.at.seq);
    root.dataset.viewState = insp.state.path;
  } catch (error) {
    if (error.name !== 'AbortError') fail(error);
  } finally {
    figure.setAttribute('aria-busy', 'false');
  }
}

function onTimelineKey(event) {
  const pick = event.target.closest('.pick');
  if (!pick) return;
  const steps = allSteps();
  const i = steps.findIndex((s) => String(s.seq) === pick.dataset.seq);
  const to = { ArrowDown: i + 1, ArrowRight: i + 1, ArrowUp: i - 1, ArrowLeft: i - 1, Home: 0, End: steps.length - 1, PageDown: i + PAGE, PageUp: i - PAGE }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  const target = steps[Math.min(Math.max(0, to), steps.length - 1)];
  if (target) void choose(target.seq);
}

// ---------------------------------------------------------------- following the head

async function refreshHead() {
  const before = S.latest.head.seq;
  const latest = await getJson(withAt(null));
  if (latest.head.seq === before) return;
  const added = stepsOf(latest).filter((s) => s.seq > before);
  S.latest = latest;
  $('head').textContent = '#' + latest.head.seq;
  if (S.pinned === null) {
    S.page = pages() - 1;
    renderTimeline();
    await show(null);
    announce(added.length + ' new fact' + (added.length === 1 ? '' : 's') + ': ' + added.map((s) => s.kind).join(', ') + '; now ' + latest.state.status + '.');
  } else {
    renderTimeline();
    $('back').textContent = 'Back to now (' + added.length + ' new)';
    announce(added.length + ' new fact' + (added.length === 1 ? '' : 's') + ' arrived; you are viewing fact #' + S.pinned + '.');
  }
  root.dataset.headSeq = String(latest.head.seq);
}

let refreshing = null;
let again = false;
/** One refresh at a time; a burst of events while one runs makes one more. */
function scheduleRefresh() {
  if (refreshing) { again = true; return; }
  refreshing = refreshHead().catch(fail).finally(() => { refreshing = null; if (again) { again = false; scheduleRefresh(); } });
}

function poll(reason) {
  $('follow').textContent = 'Live: reading the inspection every ' + POLL_MS / 1000 + ' s (' + reason + ').';
  root.dataset.follow = 'polling';
  setInterval(scheduleRefresh, POLL_MS);
}

function follow() {
  const links = S.latest.subject.links || {};
  const subject = S.latest.subject.id;
  if (!links.stream || typeof EventSource === 'undefined') return poll('this page has no event stream to follow');
  const url = new URL(links.stream, location.href);
  url.searchParams.set('after', String(S.latest.head.seq));
  const source = new EventSource(url.pathname + url.search);
  let opened = false;
  source.addEventListener('open', () => {
    opened = true;
    $('follow').textContent = 'Live: following the event stream (' + url.pathname + ').';
    root.dataset.follow = 'stream';
  });
  source.addEventListener(SSE_EVENT, (message) => {
    try {
      const entry = JSON.parse(message.data);
      if (entry.subject === subject) scheduleRefresh();
    } catch { /* a frame that is not JSON is not ours */ }
  });
  source.addEventListener('error', () => {
    // Closed for good (not a reconnect): the door answered something other than a stream, e.g. the top level without a key.
    if (source.readyState === EventSource.CLOSED) {
      source.close();
      poll(opened ? 'the event stream closed' : 'the event stream of this grain needs an API key, which a page does not send');
    }
  });
}

// ---------------------------------------------------------------- start

/** The subject's other doors, as the inspection links them (its JSON, a Matter's ladder, …). */
function renderLinks(insp) {
  const links = { ...(insp.subject.links || {}) };
  // A Matter's Asset has a Deadline Ladder beside it, under the same grain.
  if (!links.ladder && insp.matter && insp.matter.assetId) links.ladder = links.entity.replace(/\/matters\/[^/]+$/, '/deadlines/' + encodeURIComponent(insp.matter.assetId) + '/inspect');
  const words = { self: 'inspection (JSON)', entity: 'JSON', ladder: 'its Deadline Ladder' };
  const shown = Object.entries(links).filter(([name, href]) => typeof href === 'string' && name !== 'page' && name !== 'stream');
  if (shown.length) $('links').replaceChildren(...shown.map(([name, href]) => el('a', { href, text: words[name] || name })));
}

async function start() {
  S.title = root.dataset.title;
  const at = new URL(location.href).searchParams.get('at');
  // The inspection as of now came inside the page (the door's own answer); only the diagram is fetched.
  const now = document.getElementById('inspection-now');
  const [svgText, latest] = await Promise.all([
    fetch(doors.diagram).then((r) => { if (!r.ok) throw new Error('the diagram ' + doors.diagram + ' is not served (' + r.status + ')'); return r.text(); }),
    now ? Promise.resolve(JSON.parse(now.textContent)) : getJson(withAt(null)),
  ]);
  S.latest = latest;
  renderLinks(latest);
  mount(svgText);
  $('head').textContent = '#' + latest.head.seq;
  root.dataset.headSeq = String(latest.head.seq);
  const seq = at !== null && /^\d+$/.test(at) && Number(at) < latest.head.seq ? Number(at) : null; // at or past the head: now
  S.pinned = seq;
  S.page = pageOfSeq(seq === null ? latest.head.seq : seq);
  renderTimeline();
  await show(seq);
  performance.mark('inspector:marked');
  root.dataset.ready = 'true';
  follow();
}

$('timeline').addEventListener('click', (event) => { const pick = event.target.closest('.pick'); if (pick) void choose(Number(pick.dataset.seq)); });
$('timeline').addEventListener('keydown', onTimelineKey);
$('back').addEventListener('click', () => void choose(S.latest.head.seq));
$('zoom').addEventListener('click', () => { S.fit = !S.fit; applyZoom(); });
$('coverage').addEventListener('click', () => {
  S.coverage = !S.coverage;
  $('coverage').setAttribute('aria-pressed', String(S.coverage));
  if (S.ix) redraw();
});
for (const [id, move] of [['first', () => 0], ['earlier', () => S.page - 1], ['later', () => S.page + 1], ['last', () => pages() - 1]]) {
  $(id).addEventListener('click', () => { S.page = move(); renderTimeline(); });
}

start().catch((error) => { fail(error); root.dataset.ready = 'failed'; });
`;
