/**
 * The DOM helpers every page's script shares: an element by id, checked to be
 * the kind the script uses it as, and elements built with their attributes
 * and children (text always as text, never as markup).
 */

type Attributes = Record<string, string | number | boolean | null | undefined>;
type Child = Node | string | null | undefined;

/**
 * The page's element of id `id`, of the kind given (an `HTMLButtonElement`,
 * …): the page's markup and its script disagree loudly, naming the id.
 */
export function $(id: string): HTMLElement;
export function $<T extends Element>(id: string, kind: abstract new () => T): T;
export function $(id: string, kind: abstract new () => Element = HTMLElement): Element {
  const node = document.getElementById(id);
  if (!(node instanceof kind)) throw new Error(`the page has no ${kind.name} #${id}`);
  return node;
}

/** An HTML element: `text` is its text content; an attribute that is null, undefined or false is left out, true is present and empty. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') node.textContent = String(v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

const SVGNS = 'http://www.w3.org/2000/svg';

/** An SVG element, with its attributes and its text. */
export function svgEl<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}, text?: string): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}
