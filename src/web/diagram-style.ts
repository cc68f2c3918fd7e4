/**
 * The look of the marks every page that draws on a machine's generated
 * diagram shares (the inspector, the population view, the docs page's
 * coverage), and their legends: each mark drawn beside its words. The marks
 * themselves are toggled by the pages' scripts (`browser/diagram.ts`).
 *
 * No mark relies on hue alone: each has a shape (a ring, a dash, a dotted or
 * thick stroke, a badge) and words (a tag, a glyph, a number).
 */

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
