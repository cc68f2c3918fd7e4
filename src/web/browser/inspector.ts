/**
 * The inspector page's script (`src/web/inspector.ts` serves the page). It
 * reads only public doors: the record's inspection (`…/inspection`, and
 * `?at=<seq>` for time travel; the one as of now comes inside the page), the
 * generated SVG, and the grain's event stream (or, where the stream needs a
 * key the page does not have, the inspection again every few seconds, said on
 * the page).
 *
 * The diagram is the generated SVG inlined, its elements found by the names
 * the generator gives them (`diagram.ts`): marks are classes toggled on those
 * elements (`is-current`, `is-visited`, `is-taken`, `is-open`, `is-refused`,
 * `is-dim`) and a badge layer drawn over them; what to mark is read off the
 * inspection by `path-marks.ts`. The model tests' coverage is drawn the same
 * way, on demand.
 */
import type { Inspection, InspectionStep } from './contract.ts';
import { coverageWords, type DrawnCoverage } from './coverage.ts';
import { badge, badgeWidth, clearMarks, drawCoverage, fitDiagram, markLines, midOf, mountDiagram, revealIn, type Diagram } from './diagram.ts';
import { $, el, svgEl } from './dom.ts';
import { follow, oneAtATime, POLL_MS } from './follow.ts';
import { getJson } from './http.ts';
import { arrivalWords, askedSeq, asOfWords, factRows, inspectionCaption, inspectionLinks, KeptViews, kindWords, timeOf } from './inspection-view.ts';
import { ancestorsOf, besideLabel, pathMarks, stepsLabel } from './path-marks.ts';
import { keyTarget, pageCount, pageOfSeq, timelinePage } from './timeline.ts';

const root = $('inspector');
const doors = { inspection: root.dataset.inspection ?? '', diagram: root.dataset.diagram ?? '' };
const title = root.dataset.title ?? '';
/** The model tests' coverage of this machine (visualizations/<machine>.coverage.json), as the page was served with it. */
const COVERAGE: DrawnCoverage | null = root.dataset.coverage ? JSON.parse(root.dataset.coverage) : null;

/** What the page holds between events. */
interface PageState {
  /** The inspection at the head: its path is the whole timeline. */
  latest: Inspection | null;
  /** The inspection drawn now (the head's, or one as of a fact). */
  view: Inspection | null;
  /** The seq the reviewer chose, or null: following the head. */
  pinned: number | null;
  page: number;
  views: KeptViews<Inspection>;
  /** The view being fetched, to abort when the reviewer moves on. */
  loading: AbortController | null;
  /** The inlined diagram, its elements by name. */
  ix: Diagram | null;
  /** Drawing the model tests' coverage rather than the record. */
  coverage: boolean;
  /** The diagram shrunk to its box, rather than at its actual size. */
  fit: boolean;
}

const S: PageState = {
  latest: null,
  view: null,
  pinned: null,
  page: 0,
  views: new KeptViews(),
  loading: null,
  ix: null,
  coverage: false,
  fit: !matchMedia('(max-width: 760px)').matches,
};

/** The head's inspection: read before anything that needs it can run. */
function latest(): Inspection {
  if (!S.latest) throw new Error('the inspection has not been read yet');
  return S.latest;
}

/** The inspection as of `seq` (null: now), as the door answers it. */
const inspectionAt = async (seq: number | null, signal?: AbortSignal): Promise<Inspection> =>
  (await getJson<{ inspection: Inspection }>(doors.inspection + (seq === null ? '' : `?at=${seq}`), { signal })).inspection;

const stepsOf = (insp: Inspection): InspectionStep[] => insp.path ?? [];

function announce(text: string): void {
  $('announce').textContent = text;
}

function fail(error: unknown): void {
  const box = $('problem');
  box.hidden = false;
  box.textContent = error instanceof Error ? error.message : String(error);
}

// ---------------------------------------------------------------- the diagram

function applyZoom(): void {
  if (!S.ix) return;
  fitDiagram(S.ix, S.fit);
  $('zoom').setAttribute('aria-pressed', S.fit ? 'false' : 'true');
  revealCurrent();
}

function drawMarks(ix: Diagram, insp: Inspection): void {
  clearMarks(ix);
  const marks = pathMarks(insp);
  const numbered = new Map<SVGGElement, number[]>();
  const number = (g: SVGGElement | undefined, step: number) => {
    if (!g) return;
    numbered.set(g, [...(numbered.get(g) ?? []), step]);
  };
  for (const mark of marks.steps) {
    if ('edges' in mark) {
      for (const key of mark.edges) {
        const t = ix.transitions.get(key);
        if (!t) continue;
        t.g.classList.add('is-taken');
        markLines(t, 'line-taken');
        number(t.g, mark.step);
      }
    } else if ('starts' in mark) {
      // The opening: the start arrows into its first state; the innermost carries the number.
      const arrows = mark.starts.flatMap((scope) => ix.initialEdges.get(scope) ?? []);
      for (const g of arrows) g.classList.add('is-taken');
      number(arrows[arrows.length - 1], mark.step);
    } else {
      number(ix.states.get(mark.state), mark.step);
    }
  }
  for (const path of marks.visited) ix.states.get(path)?.classList.add('is-visited');
  for (const [key, t] of ix.transitions) {
    if (marks.open.has(key)) {
      t.g.classList.add('is-open');
      markLines(t, 'line-open', '▶');
    } else if (marks.refused.has(key)) {
      t.g.classList.add('is-refused');
      markLines(t, 'line-refused', '✕');
    }
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
    const boxes = [...g.querySelectorAll<SVGTextElement>(':scope > text')].map((t) => t.getBBox());
    const label = boxes.length ? boxes.reduce((a, b) => ({ x1: Math.min(a.x1, b.x), x2: Math.max(a.x2, b.x + b.width) }), { x1: Infinity, x2: -Infinity }) : null;
    badge(ix, besideLabel(m.x, label, badgeWidth(text)), m.y, text, 'step', 'middle', g.id);
  }
  const current = ix.states.get(insp.state.path);
  if (current) {
    current.classList.add('is-current');
    for (const a of ancestorsOf(insp.state.path)) ix.states.get(a)?.classList.add('is-within');
    const b = current.getBBox();
    const ring = svgEl('g', { class: 'now' });
    for (const pad of [4, 8]) ring.append(svgEl('rect', { x: b.x - pad, y: b.y - pad, width: b.width + 2 * pad, height: b.height + 2 * pad, rx: 6 + pad }));
    ix.overlay.append(ring);
    // A tab on the ring's top left corner: the words say which state, not only its outline.
    badge(ix, b.x - 10, b.y - 10, insp.at.latest ? 'now' : `as of #${insp.at.seq}`, 'now-label', 'start', current.id);
  }
  revealCurrent();
}

/** Scrolls the diagram's own box (never the window) so the current state is in view. */
function revealCurrent(): void {
  if (S.ix) revealIn(S.ix, S.ix.svg.querySelector('g.is-current'));
}

/** Draws what the reviewer asked for: the record as of the fact shown, or the machine's model coverage. */
function redraw(): void {
  if (!S.ix) return;
  if (S.coverage && COVERAGE) {
    const drawn = drawCoverage(S.ix, COVERAGE);
    $('diagram-caption').textContent = `Model coverage (not this ${title}): ${coverageWords(`${title} machine`, drawn)}`;
    root.dataset.drawn = 'coverage';
  } else if (S.view) {
    drawMarks(S.ix, S.view);
    $('diagram-caption').textContent = inspectionCaption(title, S.view);
    root.dataset.drawn = 'inspection';
  }
  $('legend-inspection').hidden = S.coverage;
  $('legend-coverage').hidden = !S.coverage;
}

// ---------------------------------------------------------------- the panel beside it

function renderNow(insp: Inspection): void {
  $('state-name').textContent = insp.state.status;
  $('state-path').textContent = insp.state.path;
  $('state-final').textContent = insp.state.final ? 'terminal: no command moves it again' : '';
  $('state-tags').textContent = (insp.state.tags ?? []).join(', ') || 'none';
  $('as-of').textContent = asOfWords(insp, S.latest ? S.latest.head : insp.head);
  const mode = $('mode');
  mode.textContent = insp.at.latest ? 'now' : 'time travel';
  mode.className = `pill ${insp.at.latest ? 'ok' : 'warn'}`;
  const back = $('back', HTMLButtonElement);
  back.disabled = S.pinned === null;
  if (S.pinned === null) back.textContent = 'Back to now';
  // One line a door; what to send, the edges it takes and the refusal's words open beneath it.
  const open = $('open-list');
  open.replaceChildren(
    ...(insp.open ?? []).map((o) =>
      el('li', {}, el('details', {},
        el('summary', {}, el('span', { 'aria-hidden': 'true', text: '▶ ' }), el('strong', { text: o.command }), ' ', el('code', { text: (o.sends ?? []).join(', ') })),
        el('p', {}, el('code', { text: `${o.method} ${o.href || o.door}` })),
        o.note ? el('p', { class: 'note', text: o.note }) : null,
        o.transitions?.length ? el('p', { class: 'edges', text: o.transitions.join('; ') }) : null,
        o.body ? el('pre', { tabindex: '0', text: JSON.stringify(o.body, null, 2) }) : null)),
    ),
  );
  if (!open.children.length) open.append(el('li', { class: 'note', text: `none: ${insp.state.final ? 'a terminal is forever' : 'every command is refused now'}` }));
  $('open-count').textContent = String((insp.open ?? []).length);
  $('refused-list').replaceChildren(
    ...(insp.refused ?? []).map((r) =>
      el('li', {}, el('details', {},
        el('summary', {}, el('span', { 'aria-hidden': 'true', text: '✕ ' }), el('strong', { text: r.command }), ' ', el('code', { text: `${r.status} ${r.code}` })),
        el('p', { text: r.error }),
        r.fix ? el('p', { class: 'note', text: `Fix: ${r.fix}` }) : null,
        r.rule ? el('p', { class: 'note', text: `Rule: ${r.rule}` }) : null,
        el('p', {}, el('code', { text: `${r.method} ${r.href || r.door}` })),
        r.note ? el('p', { class: 'note', text: r.note }) : null,
        r.body ? el('pre', { tabindex: '0', text: JSON.stringify(r.body, null, 2) }) : null)),
    ),
  );
  $('refused-count').textContent = String((insp.refused ?? []).length);
}

// ---------------------------------------------------------------- the timeline

function factItem(s: InspectionStep, selected: boolean): HTMLLIElement {
  const pick = el('button', { type: 'button', class: 'pick', 'data-seq': s.seq, 'aria-pressed': selected ? 'true' : 'false', tabindex: selected ? '0' : '-1' }, el('span', { class: 'seq', text: `#${s.seq}` }), ' ', el('span', { class: 'kind', text: kindWords(s) }));
  const facts = el('dl', { class: 'facts' });
  for (const [label, value] of factRows(s)) facts.append(el('dt', { text: label }), el('dd', { text: value }));
  const payload = { note: s.note, transitions: s.transitions, data: s.data };
  return el('li', { class: `fact${selected ? ' selected' : ''}`, 'data-seq': s.seq },
    el('div', { class: 'fact-head' }, pick, el('time', { datetime: s.at, text: timeOf(s.at) })),
    facts,
    el('details', {}, el('summary', { text: 'payload' }), el('pre', { tabindex: '0', text: JSON.stringify(payload, null, 2) })));
}

const allSteps = (): InspectionStep[] => (S.latest ? stepsOf(S.latest) : []);
const selectedSeq = (): number | null => (S.pinned === null ? (S.latest ? S.latest.head.seq : null) : S.pinned);

function renderTimeline(): void {
  const shown = timelinePage(allSteps(), S.page);
  S.page = shown.page;
  const chosen = selectedSeq();
  const list = $('timeline');
  list.replaceChildren(...shown.shown.map((s) => factItem(s, s.seq === chosen)));
  // One stop in the tab order: the chosen fact, or the page's last when the chosen one is on another page.
  if (!list.querySelector('.pick[tabindex="0"]')) list.lastElementChild?.querySelector('.pick')?.setAttribute('tabindex', '0');
  $('page-info').textContent = shown.info;
  $('earlier', HTMLButtonElement).disabled = shown.first;
  $('later', HTMLButtonElement).disabled = shown.last;
  $('first', HTMLButtonElement).disabled = shown.first;
  $('last', HTMLButtonElement).disabled = shown.last;
}

function focusSeq(seq: number): void {
  const b = $('timeline').querySelector<HTMLButtonElement>(`.pick[data-seq="${seq}"]`);
  if (b) {
    b.focus();
    b.scrollIntoView({ block: 'nearest' });
  }
}

/** Chooses a fact: the diagram shows the record as of it (the head's fact means following the head again). */
async function choose(seq: number, { focus = true } = {}): Promise<void> {
  S.pinned = seq === latest().head.seq ? null : seq;
  S.page = pageOfSeq(allSteps(), seq);
  renderTimeline();
  if (focus) focusSeq(seq);
  const url = new URL(location.href);
  if (S.pinned === null) url.searchParams.delete('at');
  else url.searchParams.set('at', String(seq));
  history.replaceState(null, '', url);
  await show(S.pinned);
}

async function viewAt(seq: number | null): Promise<Inspection> {
  if (seq === null) return latest();
  const kept = S.views.get(seq);
  if (kept) return kept;
  S.loading?.abort();
  const ctrl = (S.loading = new AbortController());
  const insp = await inspectionAt(seq, ctrl.signal);
  S.views.set(seq, insp);
  return insp;
}

async function show(seq: number | null): Promise<void> {
  const figure = $('figure');
  figure.setAttribute('aria-busy', 'true');
  try {
    const insp = await viewAt(seq);
    if (seq !== S.pinned) return; // the reviewer moved on meanwhile
    if (seq !== null && insp.at.seq !== seq) {
      // A seq between this record's facts (a link's ?at=) shows the fact at or before it: choose that one.
      S.pinned = insp.at.latest ? null : insp.at.seq;
      S.page = pageOfSeq(allSteps(), insp.at.seq);
      renderTimeline();
    }
    S.view = insp;
    redraw();
    renderNow(insp);
    root.dataset.viewSeq = String(insp.at.seq);
    root.dataset.viewState = insp.state.path;
  } catch (error) {
    // Aborted: the reviewer chose another fact, which is shown instead.
    if (!(error instanceof DOMException && error.name === 'AbortError')) fail(error);
  } finally {
    figure.setAttribute('aria-busy', 'false');
  }
}

function onTimelineKey(event: KeyboardEvent): void {
  const pick = event.target instanceof Element ? event.target.closest<HTMLElement>('.pick') : null;
  if (!pick) return;
  const steps = allSteps();
  const to = keyTarget(event.key, steps.findIndex((s) => String(s.seq) === pick.dataset.seq), steps.length);
  if (to === undefined) return;
  event.preventDefault();
  const target = steps[to];
  if (target) void choose(target.seq);
}

// ---------------------------------------------------------------- following the head

async function refreshHead(): Promise<void> {
  const before = latest().head.seq;
  const now = await inspectionAt(null);
  if (now.head.seq === before) return;
  const added = stepsOf(now).filter((s) => s.seq > before);
  S.latest = now;
  $('head').textContent = `#${now.head.seq}`;
  if (S.pinned === null) {
    S.page = pageCount(allSteps().length) - 1;
    renderTimeline();
    await show(null);
  } else {
    renderTimeline();
    $('back').textContent = `Back to now (${added.length} new)`;
  }
  announce(arrivalWords(added, now, S.pinned));
  root.dataset.headSeq = String(now.head.seq);
}

/** One refresh at a time; a burst of events while one runs makes one more. */
const scheduleRefresh = oneAtATime(refreshHead, fail);

function followHead(insp: Inspection): void {
  follow(
    { subject: insp.subject.id, stream: insp.subject.links.stream, after: insp.head.seq, base: location.href },
    {
      streams: typeof EventSource === 'undefined' ? undefined : { open: (path) => new EventSource(path), closed: EventSource.CLOSED },
      every: (ms, work) => setInterval(work, ms),
    },
    {
      streaming: (path) => {
        $('follow').textContent = `Live: following the event stream (${path}).`;
        root.dataset.follow = 'stream';
      },
      polling: (reason) => {
        $('follow').textContent = `Live: reading the inspection every ${POLL_MS / 1000} s (${reason}).`;
        root.dataset.follow = 'polling';
      },
      moved: scheduleRefresh,
    },
  );
}

// ---------------------------------------------------------------- start

async function start(): Promise<void> {
  // The inspection as of now came inside the page (the door's own answer); only the diagram is fetched.
  const now = document.getElementById('inspection-now');
  const [svgText, insp] = await Promise.all([
    fetch(doors.diagram).then((r) => {
      if (!r.ok) throw new Error(`the diagram ${doors.diagram} is not served (${r.status})`);
      return r.text();
    }),
    now ? Promise.resolve<Inspection>(JSON.parse(now.textContent ?? '')) : inspectionAt(null),
  ]);
  S.latest = insp;
  const links = inspectionLinks(insp);
  if (links.length) $('links').replaceChildren(...links.map((l) => el('a', { href: l.href, text: l.words })));
  S.ix = mountDiagram($('diagram'), svgText, 'diagram-caption');
  applyZoom();
  $('head').textContent = `#${insp.head.seq}`;
  root.dataset.headSeq = String(insp.head.seq);
  const seq = askedSeq(new URL(location.href).searchParams.get('at'), insp.head.seq);
  S.pinned = seq;
  S.page = pageOfSeq(allSteps(), seq === null ? insp.head.seq : seq);
  renderTimeline();
  await show(seq);
  performance.mark('inspector:marked');
  root.dataset.ready = 'true';
  followHead(insp);
}

$('timeline').addEventListener('click', (event) => {
  const pick = event.target instanceof Element ? event.target.closest<HTMLElement>('.pick') : null;
  if (pick) void choose(Number(pick.dataset.seq));
});
$('timeline').addEventListener('keydown', onTimelineKey);
$('back').addEventListener('click', () => void choose(latest().head.seq));
$('zoom').addEventListener('click', () => {
  S.fit = !S.fit;
  applyZoom();
});
$('coverage').addEventListener('click', () => {
  S.coverage = !S.coverage;
  $('coverage').setAttribute('aria-pressed', String(S.coverage));
  redraw();
});
const PAGER: Array<[string, () => number]> = [
  ['first', () => 0],
  ['earlier', () => S.page - 1],
  ['later', () => S.page + 1],
  ['last', () => pageCount(allSteps().length) - 1],
];
for (const [id, move] of PAGER) {
  $(id).addEventListener('click', () => {
    S.page = move();
    renderTimeline();
  });
}

start().catch((error: unknown) => {
  fail(error);
  root.dataset.ready = 'failed';
});
