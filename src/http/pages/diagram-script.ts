/**
 * What every page that draws on a machine's generated diagram shares (the
 * inspector, the population view, the docs page's coverage): the SVG
 * `npm run diagrams` wrote, inlined and indexed by the names the generator
 * gives its elements (`src/diagrams/names.ts`), marks as classes toggled on
 * those elements, words added to a transition's label line (a glyph before
 * it, a count after it), and a badge layer drawn over them. Each page's
 * script starts with `DIAGRAM_SCRIPT` and adds only what it draws.
 *
 * No mark relies on hue alone: each has a shape (a ring, a dash, a dotted or
 * thick stroke, a badge) and words (a tag, a glyph, a number).
 */
import { INITIAL_EDGE_ID, STATE_ID, TRANSITION_TOKEN } from '../../diagrams/names.ts';

/** The browser-side helpers, as plain script text (the pages' scripts run under their nonce, with no bundler). */
export const DIAGRAM_SCRIPT = String.raw`
const NAMES = ${JSON.stringify({ state: STATE_ID, token: TRANSITION_TOKEN, initialEdge: INITIAL_EDGE_ID })};
const SVGNS = 'http://www.w3.org/2000/svg';

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') node.textContent = String(v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

function svgEl(tag, attrs, text) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * Inlines a generated SVG into holder and indexes its named elements: states
 * by dotted path, transitions by edge key (with the label lines each draws),
 * start arrows by scope; plus an overlay layer for badges.
 */
function mountDiagram(holder, text, labelledBy) {
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const source = doc.documentElement;
  if (source.nodeName !== 'svg') throw new Error('the diagram could not be read');
  const width = parseFloat(source.getAttribute('width'));
  source.removeAttribute('width');
  source.removeAttribute('height');
  source.dataset.naturalWidth = String(Math.round(width * 4 / 3));
  source.setAttribute('role', 'img');
  if (labelledBy) source.setAttribute('aria-labelledby', labelledBy);
  source.setAttribute('focusable', 'false');
  // Graphviz writes a <title> per element; a pointer hovering over one would show raw dotted names.
  for (const t of source.querySelectorAll('title')) t.remove();
  // Badges may sit past the drawing's edge; the box around it scrolls.
  source.setAttribute('overflow', 'visible');
  holder.replaceChildren(document.importNode(source, true));
  const svg = holder.querySelector('svg');
  const overlay = svgEl('g', { class: 'overlay', 'aria-hidden': 'true' });
  svg.querySelector('g.graph').append(overlay);
  const ix = { svg, holder, states: new Map(), transitions: new Map(), initialEdges: new Map(), overlay };
  for (const g of svg.querySelectorAll('g[id]')) {
    if (g.id.startsWith(NAMES.state)) ix.states.set(g.id.slice(NAMES.state.length), g);
    else if (g.id.startsWith(NAMES.initialEdge)) ix.initialEdges.set(g.id.slice(NAMES.initialEdge.length), g);
    const tokens = [...g.classList].filter((c) => c.startsWith(NAMES.token));
    const lines = [...g.querySelectorAll('text')];
    tokens.forEach((token, i) => {
      // A merged edge draws one label line per transition, in the order of its tokens.
      ix.transitions.set(decodeURIComponent(token.slice(NAMES.token.length)), { g, lines: tokens.length > 1 ? [lines[i]].filter(Boolean) : lines });
    });
  }
  return ix;
}

/** Fit shrinks a wide drawing to its box, never blows a small one up past its size; otherwise its actual size, scrolled. */
function fitDiagram(ix, fit) {
  ix.svg.style.width = fit ? '100%' : ix.svg.dataset.naturalWidth + 'px';
  ix.svg.style.maxWidth = fit ? ix.svg.dataset.naturalWidth + 'px' : 'none';
}

const MARK_CLASSES = ['is-current', 'is-visited', 'is-within', 'is-taken', 'is-open', 'is-refused', 'is-dim', 'is-walked', 'is-unwalked', 'is-counted', 'is-empty', 'is-chosen'];
const LINE_CLASSES = ['line-open', 'line-refused', 'line-taken', 'line-unwalked', 'line-counted'];

function clearMarks(ix) {
  for (const node of ix.svg.querySelectorAll('.' + MARK_CLASSES.join(',.'))) node.classList.remove(...MARK_CLASSES);
  for (const node of ix.svg.querySelectorAll('.' + LINE_CLASSES.join(',.'))) node.classList.remove(...LINE_CLASSES);
  for (const node of ix.svg.querySelectorAll('tspan.cue')) node.remove();
  for (const g of ix.svg.querySelectorAll('g[style]')) g.style.removeProperty('--weight');
  ix.overlay.replaceChildren();
}

/** The middle of an edge's drawn path, where its badge goes. */
function midOf(g) {
  const path = g.querySelector('path');
  if (!path) { const b = g.getBBox(); return { x: b.x + b.width / 2, y: b.y + b.height / 2 }; }
  const p = path.getPointAtLength(path.getTotalLength() / 2);
  return { x: p.x, y: p.y };
}

/** A badge over the diagram; forId names the element it belongs to (data-for). */
function badge(ix, x, y, text, cls, anchor, forId) {
  const w = Math.max(14, text.length * 6 + 8);
  const left = anchor === 'start' ? x : anchor === 'end' ? x - w : x - w / 2;
  const g = svgEl('g', { class: 'badge ' + cls, 'data-for': forId || '', transform: 'translate(' + left.toFixed(1) + ',' + y.toFixed(1) + ')' });
  g.append(svgEl('rect', { x: 0, y: -8, width: w, height: 16, rx: 8 }), svgEl('text', { x: w / 2, y: 3.5, 'text-anchor': 'middle' }, text));
  ix.overlay.append(g);
  return g;
}

/** Marks one transition's label: a cue glyph before its first line (the words say it, not only the colour). */
function markLines(t, cls, glyph) {
  t.lines.forEach((line, i) => {
    line.classList.add(cls);
    if (i === 0 && glyph) line.prepend(svgEl('tspan', { class: 'cue' }, glyph + ' '));
  });
}

/** Words after a transition's label (its last line): a count, "unwalked". */
function suffixLines(t, cls, words) {
  const line = t.lines[t.lines.length - 1];
  if (!line) return;
  line.classList.add(cls);
  line.append(svgEl('tspan', { class: 'cue after' }, ' ' + words));
}

/**
 * The model tests' coverage (visualizations/<machine>.coverage.json) on the
 * diagram: each walked transition says how many paths walked it; an
 * unwalked one is a thick dotted stroke prefixed "⚠" and says "unwalked".
 * Returns what it drew, for a caption.
 */
function drawCoverage(ix, coverage) {
  clearMarks(ix);
  const unwalked = [];
  for (const t of coverage.transitions) {
    const drawn = ix.transitions.get(t.key);
    if (!drawn) continue;
    if (t.paths > 0) {
      drawn.g.classList.add('is-walked');
      suffixLines(drawn, 'line-counted', '· ' + t.paths + (t.paths === 1 ? ' path' : ' paths'));
    } else {
      unwalked.push(t.key);
      markLines(drawn, 'line-unwalked', '⚠');
      suffixLines(drawn, 'line-unwalked', '· unwalked');
    }
  }
  // A merged edge is drawn unwalked when any of its transitions is: that is the one to see.
  for (const key of unwalked) { const d = ix.transitions.get(key); d.g.classList.remove('is-walked'); d.g.classList.add('is-unwalked'); }
  return { walked: coverage.walked, total: coverage.total, refusing: coverage.refusing, paths: coverage.paths, unwalked };
}

function coverageWords(machine, c) {
  const paths = c.paths.shortest + c.paths.simple;
  return machine + ': ' + c.walked + ' of ' + c.total + ' transitions walked by ' + paths + ' model paths (' + c.refusing.walked + ' of ' + c.refusing.total + ' refusing edges)' + (c.unwalked.length ? '; unwalked: ' + c.unwalked.join('; ') : '; none unwalked') + '.';
}

/** Scrolls a diagram's own box (never the window) so g is in view. */
function revealIn(ix, g) {
  if (!g) return;
  const r = g.getBoundingClientRect();
  const c = ix.holder.getBoundingClientRect();
  if (r.top >= c.top && r.bottom <= c.bottom && r.left >= c.left && r.right <= c.right) return;
  ix.holder.scrollBy({ left: r.left + r.width / 2 - (c.left + c.width / 2), top: r.top + r.height / 2 - (c.top + c.height / 2) });
}

async function fetchText(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error('the diagram ' + url + ' is not served (' + res.status + ')');
  return res.text();
}
`;

/** The marks' look on an inlined diagram (a page puts its diagram in an element of class `diagram`). */
export const DIAGRAM_STYLE = `
.diagram { overflow:auto; background:#fff; border:1px solid var(--line); border-radius:6px; }
.diagram svg { display:block; height:auto; max-width:none; }
.diagram g.is-dim { opacity:.45; }
.diagram g.is-refused { opacity:.4; }
.diagram g.is-visited > path, .diagram g.is-visited > polygon, .diagram g.is-visited > ellipse { fill:#eef3fb; stroke:#2f5fb3; stroke-width:2; }
.diagram g.is-within > path { stroke:#1d2430; stroke-width:2.4; }
.diagram g.is-current > path, .diagram g.is-current > polygon { fill:#fff6d6; stroke:#1d2430; stroke-width:2.5; }
.diagram g.is-current text { font-weight:700; }
.diagram g.is-taken > path { stroke:#2f5fb3; stroke-width:2.4; }
.diagram g.is-taken > polygon { fill:#2f5fb3; stroke:#2f5fb3; }
.diagram g.is-open > path { stroke:#1f7a4d; stroke-width:2.8; stroke-dasharray:7 3; }
.diagram g.is-open > polygon { fill:#1f7a4d; stroke:#1f7a4d; }
.diagram text.line-taken { font-weight:700; }
.diagram text.line-open { font-weight:700; fill:#1f7a4d; text-decoration:underline; }
.diagram text.line-refused { text-decoration:line-through; }
.diagram g.is-walked > path { stroke:#1d2430; stroke-width:1.6; }
.diagram g.is-unwalked > path { stroke:#a32626; stroke-width:3; stroke-dasharray:2 3; }
.diagram g.is-unwalked > polygon { fill:#a32626; stroke:#a32626; }
.diagram text.line-unwalked { font-weight:700; fill:#a32626; }
.diagram text.line-counted tspan.after { font-weight:700; }
.diagram g.is-counted > path { stroke:#2f5fb3; stroke-width:calc(1.2px + var(--weight, 0) * 3.4px); }
.diagram g.is-counted > polygon { fill:#2f5fb3; stroke:#2f5fb3; }
.diagram g.is-empty { opacity:.5; }
.diagram g.is-chosen > path, .diagram g.is-chosen > polygon { fill:#fff6d6; stroke:#1d2430; stroke-width:3; }
.diagram g.state[tabindex] { cursor:pointer; }
.diagram g.state[tabindex]:focus { outline:none; }
.diagram g.state[tabindex]:focus-visible > path, .diagram g.state[tabindex]:focus-visible > polygon { stroke:var(--accent); stroke-width:4; }
.diagram .now rect { fill:none; stroke:#1d2430; }
.diagram .now rect:first-child { stroke-width:2.5; } .diagram .now rect:last-child { stroke-width:1.2; }
.diagram .badge text { font:700 10px system-ui, sans-serif; fill:#fff; }
.diagram .badge.step rect { fill:#2f5fb3; }
.diagram .badge.now-label rect { fill:#1d2430; }
.diagram .badge.count rect { fill:#1d2430; }
.diagram .badge.count.zero rect { fill:#fff; stroke:#5b6575; }
.diagram .badge.count.zero text { fill:#1d2430; }
.diagram .badge.age rect { fill:#fff1d6; stroke:#9a5b00; }
.diagram .badge.age text { fill:#5c3600; }
.legend[hidden] { display:none; }
.legend { display:grid; grid-template-columns:repeat(auto-fill, minmax(17rem, 1fr)); gap:.15rem 1rem; padding:0; list-style:none; font-size:.84rem; margin:.4rem 0; }
.legend li { display:flex; gap:.4rem; align-items:center; }
.legend svg { flex:none; }
`;

/** A legend swatch, drawn like the mark it explains. */
export const swatch = (inner: string) => `<svg width="34" height="18" viewBox="0 0 34 18" aria-hidden="true" focusable="false">${inner}</svg>`;

/** A legend: each mark drawn beside its words. */
export const legendItems = (items: Array<[string, string]>) => items.map(([mark, words]) => `<li>${mark}<span>${words}</span></li>`).join('');

/** The coverage marks, for every page that draws them. */
export const COVERAGE_LEGEND: Array<[string, string]> = [
  [swatch('<path d="M2 9h24" stroke="#1d2430" stroke-width="1.6"/><path d="M26 5l7 4-7 4z" fill="#1d2430"/>'), 'label “… · 12 paths”: walked by that many model paths'],
  [swatch('<path d="M2 9h24" stroke="#a32626" stroke-width="3" stroke-dasharray="2 3"/><path d="M26 4l7 5-7 5z" fill="#a32626"/>'), 'thick dotted, label “⚠ … · unwalked”: no model path walks it'],
];
