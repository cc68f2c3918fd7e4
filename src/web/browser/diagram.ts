/**
 * What every page that draws on a machine's generated diagram shares (the
 * inspector, the population view, the docs page's coverage): the SVG
 * `npm run diagrams` wrote, inlined and indexed by the names the generator
 * gives its elements (`src/diagrams/names.ts`), marks as classes toggled on
 * those elements, words added to a transition's label line (a glyph before
 * it, a count after it), and a badge layer drawn over them. Their look is
 * `src/web/diagram-style.ts`.
 *
 * No mark relies on hue alone: each has a shape (a ring, a dash, a dotted or
 * thick stroke, a badge) and words (a tag, a glyph, a number).
 */
import { INITIAL_EDGE_ID, STATE_ID, TRANSITION_TOKEN } from '../../diagrams/names.ts';
import { walkedWords, type CoverageDrawn, type DrawnCoverage } from './coverage.ts';
import { svgEl } from './dom.ts';

/** A drawn transition: the edge's group, and the label lines that are this transition's (a merged edge draws one line per transition). */
export interface DrawnTransition {
  g: SVGGElement;
  lines: SVGTextElement[];
}

/** An inlined diagram, its named elements by name, and the layer badges go on. */
export interface Diagram {
  svg: SVGSVGElement;
  holder: HTMLElement;
  /** States by dotted path. */
  states: Map<string, SVGGElement>;
  /** Transitions by edge key. */
  transitions: Map<string, DrawnTransition>;
  /** Start arrows by the scope they start (`''` for the machine's). */
  initialEdges: Map<string, SVGGElement>;
  overlay: SVGGElement;
}

export type BadgeAnchor = 'start' | 'middle' | 'end';

/**
 * Inlines a generated SVG into holder and indexes its named elements: states
 * by dotted path, transitions by edge key (with the label lines each draws),
 * start arrows by scope; plus an overlay layer for badges.
 */
export function mountDiagram(holder: HTMLElement, text: string, labelledBy?: string): Diagram {
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const source = doc.documentElement;
  if (source.nodeName !== 'svg') throw new Error('the diagram could not be read');
  const width = parseFloat(source.getAttribute('width') ?? '');
  source.removeAttribute('width');
  source.removeAttribute('height');
  source.dataset.naturalWidth = String(Math.round((width * 4) / 3));
  source.setAttribute('role', 'img');
  if (labelledBy) source.setAttribute('aria-labelledby', labelledBy);
  source.setAttribute('focusable', 'false');
  // Graphviz writes a <title> per element; a pointer hovering over one would show raw dotted names.
  for (const t of source.querySelectorAll('title')) t.remove();
  // Badges may sit past the drawing's edge; the box around it scrolls.
  source.setAttribute('overflow', 'visible');
  holder.replaceChildren(document.importNode(source, true));
  const svg = holder.querySelector('svg');
  const graph = svg?.querySelector('g.graph');
  if (!svg || !graph) throw new Error('the diagram could not be read');
  const overlay = svgEl('g', { class: 'overlay', 'aria-hidden': 'true' });
  graph.append(overlay);
  const ix: Diagram = { svg, holder, states: new Map(), transitions: new Map(), initialEdges: new Map(), overlay };
  for (const g of svg.querySelectorAll<SVGGElement>('g[id]')) {
    if (g.id.startsWith(STATE_ID)) ix.states.set(g.id.slice(STATE_ID.length), g);
    else if (g.id.startsWith(INITIAL_EDGE_ID)) ix.initialEdges.set(g.id.slice(INITIAL_EDGE_ID.length), g);
    const tokens = [...g.classList].filter((c) => c.startsWith(TRANSITION_TOKEN));
    const lines = [...g.querySelectorAll('text')];
    tokens.forEach((token, i) => {
      // A merged edge draws one label line per transition, in the order of its tokens.
      ix.transitions.set(decodeURIComponent(token.slice(TRANSITION_TOKEN.length)), { g, lines: tokens.length > 1 ? [lines[i]].filter(Boolean) : lines });
    });
  }
  return ix;
}

/** The dotted path of a state's group (`state:<path>`). */
export const statePathOf = (g: Element): string => g.id.slice(STATE_ID.length);

/** Fit shrinks a wide drawing to its box, never blows a small one up past its size; otherwise its actual size, scrolled. */
export function fitDiagram(ix: Diagram, fit: boolean): void {
  ix.svg.style.width = fit ? '100%' : `${ix.svg.dataset.naturalWidth}px`;
  ix.svg.style.maxWidth = fit ? `${ix.svg.dataset.naturalWidth}px` : 'none';
}

const MARK_CLASSES = ['is-current', 'is-visited', 'is-within', 'is-taken', 'is-open', 'is-refused', 'is-dim', 'is-walked', 'is-unwalked', 'is-counted', 'is-empty', 'is-chosen'];
const LINE_CLASSES = ['line-open', 'line-refused', 'line-taken', 'line-unwalked', 'line-counted'];

export function clearMarks(ix: Diagram): void {
  for (const node of ix.svg.querySelectorAll(`.${MARK_CLASSES.join(',.')}`)) node.classList.remove(...MARK_CLASSES);
  for (const node of ix.svg.querySelectorAll(`.${LINE_CLASSES.join(',.')}`)) node.classList.remove(...LINE_CLASSES);
  for (const node of ix.svg.querySelectorAll('tspan.cue')) node.remove();
  for (const g of ix.svg.querySelectorAll<SVGGElement>('g[style]')) g.style.removeProperty('--weight');
  ix.overlay.replaceChildren();
}

/** The middle of an edge's drawn path, where its badge goes. */
export function midOf(g: SVGGElement): { x: number; y: number } {
  const path = g.querySelector('path');
  if (!path) {
    const b = g.getBBox();
    return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
  }
  const p = path.getPointAtLength(path.getTotalLength() / 2);
  return { x: p.x, y: p.y };
}

/** How wide a badge of `text` is drawn. */
export const badgeWidth = (text: string): number => Math.max(14, text.length * 6 + 8);

/** A badge over the diagram; forId names the element it belongs to (data-for). */
export function badge(ix: Diagram, x: number, y: number, text: string, cls: string, anchor: BadgeAnchor, forId?: string): SVGGElement {
  const w = badgeWidth(text);
  const left = anchor === 'start' ? x : anchor === 'end' ? x - w : x - w / 2;
  const g = svgEl('g', { class: `badge ${cls}`, 'data-for': forId ?? '', transform: `translate(${left.toFixed(1)},${y.toFixed(1)})` });
  g.append(svgEl('rect', { x: 0, y: -8, width: w, height: 16, rx: 8 }), svgEl('text', { x: w / 2, y: 3.5, 'text-anchor': 'middle' }, text));
  ix.overlay.append(g);
  return g;
}

/** Marks one transition's label: a cue glyph before its first line (the words say it, not only the colour). */
export function markLines(t: DrawnTransition, cls: string, glyph?: string): void {
  t.lines.forEach((line, i) => {
    line.classList.add(cls);
    if (i === 0 && glyph) line.prepend(svgEl('tspan', { class: 'cue' }, `${glyph} `));
  });
}

/** Words after a transition's label (its last line): a count, "unwalked". */
export function suffixLines(t: DrawnTransition, cls: string, words: string): void {
  const line = t.lines[t.lines.length - 1];
  if (!line) return;
  line.classList.add(cls);
  line.append(svgEl('tspan', { class: 'cue after' }, ` ${words}`));
}

/**
 * The model tests' coverage (visualizations/<machine>.coverage.json) on the
 * diagram: each walked transition says how many paths walked it; an
 * unwalked one is a thick dotted stroke prefixed "⚠" and says "unwalked".
 * Returns what it drew, for a caption.
 */
export function drawCoverage(ix: Diagram, coverage: DrawnCoverage): CoverageDrawn {
  clearMarks(ix);
  const unwalked: string[] = [];
  for (const t of coverage.transitions) {
    const drawn = ix.transitions.get(t.key);
    if (!drawn) continue;
    if (t.paths > 0) {
      drawn.g.classList.add('is-walked');
      suffixLines(drawn, 'line-counted', walkedWords(t.paths));
    } else {
      unwalked.push(t.key);
      markLines(drawn, 'line-unwalked', '⚠');
      suffixLines(drawn, 'line-unwalked', '· unwalked');
    }
  }
  // A merged edge is drawn unwalked when any of its transitions is: that is the one to see.
  for (const key of unwalked) {
    const d = ix.transitions.get(key);
    d?.g.classList.remove('is-walked');
    d?.g.classList.add('is-unwalked');
  }
  return { walked: coverage.walked, total: coverage.total, refusing: coverage.refusing, paths: coverage.paths, unwalked };
}

/** Scrolls a diagram's own box (never the window) so g is in view. */
export function revealIn(ix: Diagram, g: Element | null): void {
  if (!g) return;
  const r = g.getBoundingClientRect();
  const c = ix.holder.getBoundingClientRect();
  if (r.top >= c.top && r.bottom <= c.bottom && r.left >= c.left && r.right <= c.right) return;
  ix.holder.scrollBy({ left: r.left + r.width / 2 - (c.left + c.width / 2), top: r.top + r.height / 2 - (c.top + c.height / 2) });
}

/** A generated diagram's text, or an error naming it. */
export async function fetchText(url: string): Promise<string> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`the diagram ${url} is not served (${res.status})`);
  return res.text();
}
