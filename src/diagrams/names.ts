/**
 * How a generated SVG names what it draws, so a page (the inspector, and the
 * coverage and counts views after it) marks elements by name, never by
 * coordinates. Graphviz writes a node's, an edge's and a cluster's `id` and
 * `class` attributes onto its `<g>`:
 *
 * - a state (an atomic or final node, or a compound's cluster):
 *   `id="state:<dotted path>"`, `class="… state <kind>"` (`atomic`, `final`,
 *   `compound`);
 * - a transition, or several merged into one drawn edge:
 *   `class="… transition <kind> t:<key> [t:<key> …]"`, one `t:` token per
 *   transition in the order of its label's lines, the key being
 *   `edgeKey` (`machines/edges.ts`) written as a URI component (a class token
 *   holds no space); `id="transition:<first key>"`;
 * - the machine's and each compound's start: `id="initial:<scope>"`
 *   (`initial:` for the root), `class="… initial"`, and its arrow
 *   `id="initial-edge:<scope>"`, `class="… initial"`;
 * - a compound's `any <name> state` note: `id="any:<path>"`, `class="… any"`.
 *
 * A browser reads a key back with `decodeURIComponent`, so no second copy of
 * the encoding lives in a page.
 */

export const STATE_ID = 'state:';
export const TRANSITION_ID = 'transition:';
export const TRANSITION_TOKEN = 't:';
export const INITIAL_ID = 'initial:';
export const INITIAL_EDGE_ID = 'initial-edge:';
export const ANY_ID = 'any:';

export const stateId = (path: string) => `${STATE_ID}${path}`;
export const transitionToken = (key: string) => `${TRANSITION_TOKEN}${encodeURIComponent(key)}`;
export const transitionId = (key: string) => `${TRANSITION_ID}${encodeURIComponent(key)}`;
export const initialId = (scope: string | null) => `${INITIAL_ID}${scope ?? ''}`;
export const initialEdgeId = (scope: string | null) => `${INITIAL_EDGE_ID}${scope ?? ''}`;
export const anyId = (compound: string) => `${ANY_ID}${compound}`;
