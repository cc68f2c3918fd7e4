/**
 * Where records gather (issue 36, item 1), as a page: a grain's Matters and
 * Deadline Ladders (or a firm's Enrollments) on their machine's generated
 * diagram, how many stand in each state and since when the oldest, how many
 * times each transition was taken, and a state's records a page at a time,
 * each opening its inspector. Camunda Operate's process-definition view
 * (counts on the diagram's elements, a click to their instances) is the model.
 *
 * A shell like the inspector's: everything it shows is read by its script
 * from the population doors (`src/http/routes/population.ts`), drawn with the
 * marks every diagram page shares (`diagram-script.ts`).
 */
import { DIAGRAM_STYLE, legendItems, swatch } from './diagram-style.ts';
import type { PopulationMachine } from './browser/population-view.ts';
import { escapeHtml as h, type Page } from './layout.ts';

export interface PopulationSubject {
  /** What is counted, in words: `workspace ws_…`, `your key's records at the top level`. */
  grain: string;
  path: string;
  machines: PopulationMachine[];
  /** The top level: the doors count the calling key's records, so the page asks for a key. */
  keyed: boolean;
}

const STYLE = `
.population [hidden] { display:none !important; }
.population code { overflow-wrap:anywhere; }
.population h1 { font-size:1.35rem; margin:0 0 .2rem; overflow-wrap:anywhere; }
.population h2 { font-size:1.08rem; margin:.9rem 0 .35rem; }
.bar { display:flex; flex-wrap:wrap; gap:.4rem 1rem; align-items:center; background:#fff; border:1px solid var(--line); border-radius:8px; padding:.4rem .7rem; margin:.4rem 0; }
.bar button { padding:.3rem .7rem; }
.bar button[aria-pressed=true], #machines button[aria-pressed=true] { background:var(--accent); color:#fff; }
#machines { display:flex; flex-wrap:wrap; gap:.4rem; margin:.4rem 0; }
#machines button { background:#fff; color:var(--accent); }
#key-form { display:flex; flex-wrap:wrap; gap:.4rem .8rem; align-items:end; }
#key-form label { margin:0; }
#key-form input { min-width:0; width:min(26rem, 100%); }
#problem { background:#fbe1e1; color:var(--bad); border:1px solid #e6b3b3; padding:.5rem .8rem; border-radius:6px; }
.grid { display:grid; grid-template-columns:minmax(0, 2fr) minmax(20rem, 1fr); gap:1rem; align-items:start; }
.grid > * { min-width:0; }
@media (max-width: 1000px) { .grid { grid-template-columns:minmax(0, 1fr); } }
#diagram { min-height:16rem; }
figure#figure { margin:.3rem 0 0; padding:.3rem; }
figure#figure figcaption { font-size:.85rem; }
.panel { background:#fff; border:1px solid var(--line); border-radius:8px; padding:.1rem .8rem .6rem; margin-bottom:.8rem; }
.panel table { font-size:.9rem; table-layout:fixed; }
.panel th, .panel td { overflow-wrap:anywhere; }
.panel th.now { width:3.6rem; }
.panel th.state { width:42%; }
.panel td.num { text-align:right; font-variant-numeric:tabular-nums; font-weight:600; }
.panel tr.chosen { background:#fff6d6; }
button.link { background:none; border:none; color:var(--accent); padding:0; text-align:left; text-decoration:underline; cursor:pointer; }
button.link[aria-pressed=true] { font-weight:700; }
button.link[aria-pressed=true]::after { content:" ◀ listed"; color:var(--ink); font-size:.85rem; }
.age { font-weight:600; }
#members { padding-left:1.6rem; margin:.3rem 0; font-size:.9rem; }
#members li { margin:.2rem 0; overflow-wrap:anywhere; }
.pager { display:flex; flex-wrap:wrap; gap:.35rem; align-items:center; margin:.3rem 0; }
.pager button { padding:.25rem .6rem; }
#facets { list-style:none; padding:0; margin:.3rem 0; font-size:.9rem; }
details.transitions summary { cursor:pointer; color:var(--accent); }
`;

const LEGEND: Array<[string, string]> = [
  [swatch('<rect x="1" y="3" width="22" height="12" rx="4" fill="#fff" stroke="#333"/><rect x="16" y="0" width="17" height="12" rx="6" fill="#1d2430"/><text x="24.5" y="9.5" text-anchor="middle" font-size="9" font-weight="700" fill="#fff">3</text>'), 'badge on a state: how many are in it now (a hollow 0, the state faded: none)'],
  [swatch('<rect x="1" y="3" width="32" height="12" rx="6" fill="#fff1d6" stroke="#9a5b00"/><text x="17" y="12.5" text-anchor="middle" font-size="8" font-weight="700" fill="#5c3600">3 h</text>'), 'under a waiting state: how long its oldest has waited'],
  [swatch('<path d="M2 9h24" stroke="#2f5fb3" stroke-width="4"/><path d="M26 4l7 5-7 5z" fill="#2f5fb3"/>'), 'label “EVENT ×12”, thicker the more: how many times it was taken'],
  [swatch('<rect x="3" y="3" width="28" height="12" rx="4" fill="#fff6d6" stroke="#1d2430" stroke-width="3"/>'), 'thick outline, tinted: the state listed beside the diagram'],
];

export function populationPage(subject: PopulationSubject): Page {
  const first = subject.machines[0];
  const tabs = subject.machines.map((m) => `<button type="button" class="secondary" data-kind="${h(m.kind)}" aria-pressed="${m === first}">${h(m.nouns)}</button>`).join('');
  const key = subject.keyed
    ? `<form id="key-form" class="panel" aria-labelledby="key-h"><h2 id="key-h">Whose records</h2>
<p class="note">At the top level the counts are one API key's own records. Give yours to count them: it stays in this page's memory, is sent only to this service's population doors, and is gone when the page is.</p>
<div><label for="key">API key</label><input id="key" type="password" autocomplete="off" spellcheck="false"></div><button type="submit">Count my records</button>
<p id="key-state" class="note" role="status">No key: the top level counts nothing without one.</p></form>`
    : '';
  return {
    title: `Where ${subject.machines.map((m) => m.nouns).join(' and ')} gather · ${subject.grain}`,
    path: subject.path,
    wide: true,
    style: DIAGRAM_STYLE + STYLE,
    script: 'population',
    body: `
<div id="population" class="population" data-machines="${h(JSON.stringify(subject.machines))}" data-keyed="${subject.keyed}">
<h1>Where <span class="noun">${h(first.nouns)}</span> gather <span class="note">· ${h(subject.grain)}</span></h1>
${subject.machines.length > 1 ? `<div id="machines" role="group" aria-label="which records">${tabs}</div>` : `<div id="machines" hidden>${tabs}</div>`}
${key}
<div class="bar" role="group" aria-label="what is counted">
  <span>in all <strong id="total">…</strong></span>
  <span>ages as of <time id="as-of">…</time></span>
  <a id="data-link" href="${h(first.data)}">the data (JSON)</a>
  <button type="button" id="refresh" class="secondary">Refresh</button>
  <button type="button" id="zoom" class="secondary" aria-pressed="false">Actual size</button>
</div>
<p id="problem" role="alert" hidden></p>
<p id="empty" class="note" role="status" hidden></p>
<ul id="facets" aria-label="counted beside the states" hidden></ul>
<div class="grid">
<section aria-labelledby="machine-h">
  <h2 id="machine-h" class="visually-hidden">On the machine</h2>
  <figure id="figure">
    <div id="diagram" class="diagram" tabindex="0" role="region" aria-label="the diagram (scrolls); each state is a button that lists its records"></div>
    <figcaption id="diagram-caption" class="note">The diagram generated from the machine (<code>npm run diagrams</code>), loading.</figcaption>
  </figure>
  <ul class="legend" aria-label="legend">${legendItems(LEGEND)}</ul>
</section>
<div>
  <section class="panel" aria-labelledby="states-h">
    <h2 id="states-h">By state</h2>
    <table><thead><tr><th scope="col" class="state">State</th><th scope="col" class="now">Now</th><th scope="col">Oldest there</th><th scope="col" id="facet-head" hidden>Facets</th></tr></thead><tbody id="states"></tbody></table>
  </section>
  <section class="panel" id="members-panel" aria-labelledby="members-h" hidden>
    <h2 id="members-h" tabindex="-1">…</h2>
    <ol id="members"></ol>
    <div class="pager" role="group" aria-label="pages of the state's records">
      <button type="button" id="members-first" class="secondary">First</button>
      <button type="button" id="members-earlier" class="secondary">Earlier</button>
      <span id="members-info"></span>
      <button type="button" id="members-later" class="secondary">Later</button>
    </div>
  </section>
  <details class="panel transitions"><summary>Transitions taken, in the machine's order</summary>
    <table><thead><tr><th scope="col">Transition</th><th scope="col" class="now">Taken</th></tr></thead><tbody id="transitions"></tbody></table>
  </details>
</div>
</div>
</div>
`,
  };
}
