/**
 * The inspector page (issue 35): one Matter, Deadline Ladder or Enrollment on
 * its machine's generated diagram, its state now (or as of any fact), the
 * path it took numbered in order, the doors open now and the refusal each
 * other command would get, beside its journal as a timeline, live.
 *
 * The page is a shell: everything it shows is read by its script
 * (`browser/inspector.ts`) from the entity's inspection door (which reads the
 * decider and folds the journal through the machine) and the SVG
 * `npm run diagrams` wrote. No view keeps its own copy of the rules.
 */
import type { DrawnCoverage } from './browser/coverage.ts';
import { COVERAGE_LEGEND, DIAGRAM_STYLE, legendItems, swatch } from './diagram-style.ts';
import { dataBlock, escapeHtml as h, type Page } from './layout.ts';

/** What the page inspects: its title, the diagram of its machine, where its doors are. */
export interface InspectorSubject {
  /** `Matter`, `Deadline Ladder`, `Enrollment`. */
  title: string;
  id: string;
  /** The page's own path (`/workspaces/ws_…/matters/mt_…/inspect`). */
  path: string;
  /** The inspection door the script reads (`…/inspection`). */
  door: string;
  /** The generated SVG (`/docs/diagrams/<machine>.svg`). */
  diagram: string;
  /** The model tests' coverage of the machine (`visualizations/<machine>.coverage.json`), drawn on demand; null when none is written. */
  coverage: DrawnCoverage | null;
  /** The inspection as of now, answered by the door the page reads, sent inside the page so its first paint waits for no second request. */
  inspection: unknown;
}

/**
 * Marks never rely on hue alone: the current state has a double ring and a
 * "now" tag, the path numbered badges, open doors a dashed thick stroke and a
 * "▶ command" tag, refused edges are faded with a "✕ refused" tag.
 */
const STYLE = `
.inspector code { overflow-wrap:anywhere; }
.inspector h1 { font-size:1.35rem; margin:0 0 .2rem; overflow-wrap:anywhere; }
.inspector h2 { font-size:1.08rem; margin:.9rem 0 .35rem; }
.inspector h3 { font-size:.98rem; margin:.6rem 0 .2rem; }
.top { display:flex; flex-wrap:wrap; gap:.2rem 1.2rem; align-items:baseline; }
.links { display:flex; flex-wrap:wrap; gap:.2rem .9rem; font-size:.9rem; }
.bar { display:flex; flex-wrap:wrap; gap:.4rem 1rem; align-items:center; background:#fff; border:1px solid var(--line); border-radius:8px; padding:.4rem .7rem; margin:.4rem 0; }
.bar .state strong { font-size:1.08rem; }
.bar button { padding:.3rem .7rem; }
.bar button[aria-pressed=true] { background:var(--accent); color:#fff; }
#follow { margin:.1rem 0; font-size:.88rem; overflow-wrap:anywhere; }
#problem { background:#fbe1e1; color:var(--bad); border:1px solid #e6b3b3; padding:.5rem .8rem; border-radius:6px; }
.grid { display:grid; grid-template-columns:minmax(0, 1.75fr) minmax(21rem, 1fr); gap:1rem; align-items:start; }
.grid > * { min-width:0; }
@media (max-width: 1000px) { .grid { grid-template-columns:minmax(0, 1fr); } }
#diagram { max-height:calc(100vh - 9rem); min-height:16rem; }
figure#figure { margin:.3rem 0 0; padding:.3rem; }
figure#figure figcaption { font-size:.85rem; }
figure#figure[aria-busy=true] .diagram { opacity:.75; }
.doors { background:#fff; border:1px solid var(--line); border-radius:8px; padding:.1rem .8rem .5rem; margin-top:.6rem; }
.doors h2 { margin-top:.5rem; }
.doors .columns { display:grid; grid-template-columns:repeat(auto-fit, minmax(18rem, 1fr)); gap:0 1.2rem; }
.doors ul { list-style:none; padding-left:0; margin:.2rem 0; font-size:.9rem; }
.doors li { margin:.2rem 0; }
.doors details p { margin:.2rem 0 .2rem 1.2rem; }
.doors summary { cursor:pointer; }
.doors .edges { font:12px/1.4 ui-monospace, monospace; color:var(--ok); overflow-wrap:anywhere; }
.pager { display:flex; flex-wrap:wrap; gap:.35rem; align-items:center; margin:.3rem 0; }
.pager button { padding:.25rem .6rem; }
.timeline { list-style:none; padding:0; margin:0; max-height:calc(100vh - 13rem); min-height:12rem; overflow:auto; border:1px solid var(--line); border-radius:6px; background:#fff; }
.fact { border-bottom:1px solid var(--line); padding:.3rem .6rem; }
.fact.selected { background:#eef3fb; box-shadow:inset 4px 0 0 var(--accent); }
.fact-head { display:flex; flex-wrap:wrap; justify-content:space-between; gap:.2rem .6rem; align-items:baseline; }
.fact time { color:var(--muted); font-size:.82rem; }
.pick { background:#fff; color:var(--ink); border:1px solid var(--line); padding:.1rem .5rem; text-align:left; font-size:.9rem; }
.pick[aria-pressed=true] { border:2px solid var(--accent); font-weight:600; }
.pick[aria-pressed=true]::after { content:" ◀ shown"; color:var(--accent); font-weight:600; }
.pick .seq { font-family:ui-monospace, monospace; }
.facts { display:grid; grid-template-columns:max-content 1fr; gap:0 .6rem; margin:.2rem 0; font-size:.84rem; }
.facts dt { color:var(--muted); } .facts dd { margin:0; overflow-wrap:anywhere; }
.fact details summary { font-size:.84rem; cursor:pointer; color:var(--accent); }
.fact pre { font-size:12px; max-height:16rem; margin:.2rem 0; }
`;

const LEGEND = [
  [swatch('<rect x="3" y="3" width="28" height="12" rx="4" fill="#fff6d6" stroke="#1d2430" stroke-width="2"/><rect x="1" y="1" width="32" height="16" rx="6" fill="none" stroke="#1d2430"/>'), 'double ring, “now” tag: the state it is in (“as of #n” in the past)'],
  [swatch('<rect x="2" y="1" width="30" height="16" rx="8" fill="#2f5fb3"/><text x="17" y="13" text-anchor="middle" font-size="10" font-weight="700" fill="#fff">3</text>'), 'numbered badge, bold arrow: a step of its path, in journal order'],
  [swatch('<path d="M2 9h24" stroke="#1f7a4d" stroke-width="3" stroke-dasharray="6 3"/><path d="M26 4l7 5-7 5z" fill="#1f7a4d"/>'), 'thick dashed arrow, label “▶ EVENT”: a door open now'],
  [swatch('<path d="M2 9h30" stroke="#333" stroke-width="1.5" stroke-dasharray="4 2" opacity=".4"/><text x="10" y="7" font-size="9" fill="#a32626">✕</text>'), 'faded, label “✕ EVENT” struck through: refused now (the list says why)'],
  [swatch('<path d="M2 9h30" stroke="#333" stroke-width="1.5" opacity=".45"/>'), 'faded: not on its path, not possible now'],
] as Array<[string, string]>;

export function inspectorPage(subject: InspectorSubject): Page {
  return {
    title: `${subject.title} ${subject.id} · inspector`,
    path: subject.path,
    wide: true,
    style: DIAGRAM_STYLE + STYLE,
    script: 'inspector',
    body: `
<div id="inspector" class="inspector" data-title="${h(subject.title)}" data-inspection="${h(subject.door)}" data-diagram="${h(subject.diagram)}"${subject.coverage ? ` data-coverage="${h(JSON.stringify(subject.coverage))}"` : ''}>
<div class="top"><h1>${h(subject.title)} <code>${h(subject.id)}</code></h1><p class="links" id="links"><a href="${h(subject.door)}">inspection (JSON)</a></p></div>
${dataBlock('inspection-now', subject.inspection)}
<div class="bar" role="group" aria-label="where it stands">
  <span id="mode" class="pill">loading</span>
  <span class="state">state <strong id="state-name">…</strong> <code id="state-path"></code></span>
  <span>shown as of <span id="as-of">…</span></span>
  <span>head <code id="head">…</code></span>
  <button type="button" id="back" class="secondary" disabled>Back to now</button>
  <button type="button" id="zoom" class="secondary" aria-pressed="false">Actual size</button>
  <button type="button" id="coverage" class="secondary" aria-pressed="false"${subject.coverage ? '' : ' disabled'} title="the transitions the model tests walk, and how many paths walk each">Model coverage</button>
</div>
<p id="follow" class="note">Live: connecting…</p>
<p id="problem" role="alert" hidden></p>
<p id="announce" class="visually-hidden" role="status" aria-live="polite"></p>
<div class="grid">
<div>
  <section aria-labelledby="machine-h">
    <h2 id="machine-h" class="visually-hidden">On its machine</h2>
    <figure id="figure" aria-busy="true">
      <div id="diagram" class="diagram" tabindex="0" role="region" aria-label="the ${h(subject.title)} diagram (scrolls)"></div>
      <figcaption id="diagram-caption" class="note">The diagram generated from the machine (<code>npm run diagrams</code>), loading.</figcaption>
    </figure>
    <ul class="legend" id="legend-inspection" aria-label="legend">${legendItems(LEGEND)}</ul>
    <ul class="legend" id="legend-coverage" aria-label="legend of the model coverage" hidden>${legendItems(COVERAGE_LEGEND)}</ul>
  </section>
  <section class="doors" aria-labelledby="doors-h">
    <h2 id="doors-h">What it may do now</h2>
    <p class="note"><span id="state-final"></span> Tags: <span id="state-tags">…</span></p>
    <div class="columns">
      <div><h3>Open (<span id="open-count">…</span>)</h3><ul id="open-list"></ul></div>
      <div><h3>Refused (<span id="refused-count">…</span>), each with its refusal</h3><ul id="refused-list"></ul></div>
    </div>
  </section>
</div>
<section aria-labelledby="timeline-h">
  <h2 id="timeline-h">Journal</h2>
  <p class="note">Choose a fact to see the ${h(subject.title)} as of it: click, or focus one and use ↑ ↓ Home End Page Up Page Down.</p>
  <div class="pager" role="group" aria-label="timeline pages">
    <button type="button" id="first" class="secondary">First</button>
    <button type="button" id="earlier" class="secondary">Earlier</button>
    <span id="page-info"></span>
    <button type="button" id="later" class="secondary">Later</button>
    <button type="button" id="last" class="secondary">Latest</button>
  </div>
  <ol id="timeline" class="timeline" aria-labelledby="timeline-h"></ol>
</section>
</div>
</div>
`,
  };
}
