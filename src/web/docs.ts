/** The docs page: what the service is, the state diagrams, a walk-through, keys, tiers and the catalog. */
import { TIER_LADDER } from '../domain/access.ts';
import { CAPABILITIES, gateView, openapiPath } from '../domain/capabilities/catalog.ts';
import { FIXTURE } from '../domain/fixtures.ts';
import { MATTER_TYPES } from '../domain/matter-types.ts';
import { SUITE_ID, SUITE_PIN } from '../verify/suite.ts';
import type { DrawnCoverage } from './browser/coverage.ts';
import { COVERAGE_LEGEND, DIAGRAM_STYLE, legendItems } from './diagram-style.ts';
import type { DiagramEntry } from './diagrams.ts';
import { escapeHtml as h, type Page } from './layout.ts';

function diagramSection(diagrams: DiagramEntry[]): string {
  return diagrams
    .map((d) =>
      d.available
        ? `<figure id="diagram-${h(d.name)}"><img src="/docs/diagrams/${h(d.file)}" alt="${h(d.title)} state diagram" loading="eager"><figcaption><strong>${h(d.title)}</strong>: ${h(d.about)}. Generated from the machine itself, never drawn by hand.</figcaption></figure>`
        : `<p class="note" id="diagram-${h(d.name)}"><strong>${h(d.title)}</strong>: the diagram is not generated in this build. <a href="/docs/diagrams/${h(d.file)}">${h(d.file)}</a> appears once <code>npm run diagrams</code> has drawn it from the machine.</p>`,
    )
    .join('\n');
}

/** A machine's coverage in words (the caption; the script draws the same on the diagram). */
function coverageWords(title: string, c: DrawnCoverage): string {
  const unwalked = c.transitions.filter((t) => t.paths === 0).map((t) => t.key);
  return `<strong>${h(title)}</strong>: ${c.walked} of ${c.total} transitions walked by ${c.paths.shortest + c.paths.simple} model paths (${c.refusing.walked} of ${c.refusing.total} refusing edges); ${unwalked.length ? `unwalked: ${unwalked.map((k) => `<code>${h(k)}</code>`).join(', ')}` : 'none unwalked'}.`;
}

/**
 * Each machine's diagram with what the model tests walked drawn on it; the
 * page's script (`browser/docs.ts`) inlines the SVG and marks it, the caption
 * says the same in words.
 */
function coverageSection(diagrams: DiagramEntry[]): string {
  const shown = diagrams.filter((d) => d.available && d.coverage);
  if (!shown.length) return '<p class="note">No coverage is written in this build: <code>npm run test:model</code> writes it.</p>';
  return shown
    .map((d) => `<figure id="coverage-${h(d.name)}" class="coverage" data-svg="/docs/diagrams/${h(d.file)}" data-coverage="${h(JSON.stringify(d.coverage))}">
<div class="diagram" tabindex="0" role="region" aria-label="the ${h(d.title)} diagram with its model coverage (scrolls)"></div>
<figcaption id="coverage-caption-${h(d.name)}">${coverageWords(d.title, d.coverage!)}</figcaption>
</figure>`)
    .join('\n');
}

const curl = String.raw;
const WALK = curl`B=http://127.0.0.1:3000
# 1. A sandbox workspace: keyless, synthetic, expires on its TTL
WS=$(curl -s -XPOST $B/workspaces | node -pe 'JSON.parse(require("fs").readFileSync(0)).workspace.id')
W=$B/workspaces/$WS
curl -s $W/fixtures                      # the magic fixtures of this workspace

# 2. Open a Matter for the fulfilling fixture Client
M=$(curl -s -XPOST $W/matters -H 'content-type: application/json' \
  -d '{"matterType":"patent_provisional","client":{"name":"${FIXTURE.fulfillingClient}"},"asset":{"title":"Self-folding map"}}' \
  | node -pe 'JSON.parse(require("fs").readFileSync(0)).matter.id')

# 3. Advance: intake -> prepare -> examine -> review commit through the Gate;
#    review -> sign and sign -> file escalate to a Signer, who (for this fixture) attests at once
for i in 1 2 3 4 5; do curl -s -XPOST $W/matters/$M/advance; echo; done

# 4. Fulfilled: the filed receipt is on file; settlement exists (no filing, no charge)
curl -s $W/matters/$M/settlement
curl -s $W/matters/$M/journal`;

const KEYS = curl`# Top-level writes need a key (shown once, stored hashed); reads never do
curl -s -XPOST $B/keys -d 'email=you@example.com' -d 'spendCeilingUsd=500'
curl -s -XPOST $B/orders -H "authorization: Bearer $KEY" -H 'content-type: application/json' \
  -d '{"mint":"you","offer":"provisional","title":"Self-folding map","inventor":"Ada Inventor","listFeeUsd":199}'`;

export function docsPage(diagrams: DiagramEntry[]): Page {
  const tiers = TIER_LADDER.map((t) => `<tr><td><code>${t.tier}</code></td><td>${t.live ? '<span class="pill ok">live</span>' : '<span class="pill warn">not live</span>'}</td><td>${h(t.grants)}</td><td>${h(t.how)}${t.note ? `<br><span class="note">${h(t.note)}</span>` : ''}</td></tr>`).join('');
  const catalog = CAPABILITIES.map((c) => `<tr><td><code>${c.method}</code></td><td><code>${h(openapiPath(c.path))}</code></td><td>${c.effect}</td><td><code>${h(JSON.stringify(gateView(c.gate)))}</code></td><td>${c.priceUsd !== undefined ? `${c.priceUsd} USD` : ''}</td><td>${h(c.purpose)}</td></tr>`).join('');
  return {
    title: 'Docs',
    path: '/docs',
    style: `${DIAGRAM_STYLE}\nfigure.coverage .diagram { border:none; }`,
    script: 'docs',
    body: `
<h1>legalwork</h1>
<p>An HTTP service through which software agents open, advance and settle legal work. A <strong>Matter</strong> is one Client's one legal objective; it moves through six stages (<code>intake</code>, <code>prepare</code>, <code>examine</code>, <code>review</code>, <code>sign</code>, <code>file</code>) and ends in a terminal (<code>fulfilled</code>, <code>withdrawn</code>, <code>lapsed</code>, <code>referred_out</code>). Acts the law reserves to a licensed human (a filing signature, a demand letter on letterhead, advice) are never performed by the agent or the service: they are posted as a <strong>Gig</strong> to a supply network, where an independent <strong>Signer</strong> attests, sends back or declines.</p>
<p>Every answer is typed <code>OK</code>, <code>EMPTY</code> or <code>BLOCKED</code>; every refusal is JSON with a worded <code>error</code> and a machine <code>code</code>; a 2xx means the journal committed. This build is a preview: a synthetic supply network, no live filings, and nothing it returns is legal advice.</p>
<p>Machine contract: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1.0, version 0.3.0). Proof: <a href="/verify">${SUITE_ID}</a>, pin <code>${SUITE_PIN}</code>. Try it in your browser: <a href="/sandbox">the sandbox</a>.</p>

<h2 id="diagrams">State diagrams</h2>
<p class="note">Drawn from the XState machines themselves (<code>visualizations/</code>), read at request time.</p>
${diagramSection(diagrams)}

<h2 id="coverage">Model coverage</h2>
<p><code>npm run test:model</code> replays each machine's shortest and simple paths through the HTTP service with the machine as the oracle, and writes which transitions (refusing edges among them) the paths walked, and how many paths walked each (<code>visualizations/&lt;machine&gt;.coverage.json</code>); <code>npm test</code> fails when a run walks otherwise, or when a transition is left unwalked. Drawn on each diagram:</p>
<ul class="legend" aria-label="legend of the model coverage">${legendItems(COVERAGE_LEGEND)}</ul>
${coverageSection(diagrams)}

<h2 id="reviewing-changes">Reviewing a machine change</h2>
<p><code>npm run diagrams -- --against &lt;git ref&gt;</code> compares each machine with the same machine at the ref, built from the ref's own sources: it prints the states and transitions added, removed and changed (a guard, a target, the fact an action emits), whether each can re-read recorded history and whether the machine's version was raised where that asks for it, and which added transitions no model path walks yet; and it draws the change on the diagram (<code>visualizations/&lt;machine&gt;.diff.svg</code>: added thick and <code>+</code>, removed dotted and <code>−</code>, changed double and <code>~</code>, with a legend). CI prints the report for a branch against its merge base with main.</p>

<h2 id="inspector">Inspecting a Matter</h2>
<p>Every Matter, Deadline Ladder and Enrollment has an inspector page beside its JSON: <code>GET /matters/{id}/inspect</code> (and under <code>/workspaces/{id}</code> and <code>/tenants/{id}</code>), <code>GET /deadlines/{assetId}/inspect</code>, <code>GET /firms/{firmId}/enrollments/{memberId}/inspect</code>. It draws the entity on the diagram above: the state it is in, the path it took numbered in order, the commands open now and the refusal every other command would get, beside its journal as a timeline. Choose a fact to see it as of that fact; new facts arrive live. A Matter's JSON links it (<code>links.inspect</code>); the data it draws is <code>GET …/inspection[?at=&lt;seq&gt;]</code>. Try it from <a href="/sandbox">the sandbox</a>: open a Matter and follow its inspector while you click.</p>

<h2 id="population">Where Matters gather</h2>
<p>Every grain has a page of its records on their machines: <code>GET /workspaces/{id}/inspect</code>, <code>GET /tenants/{id}/inspect</code> (Matters and their Deadline Ladders), <code>GET /firms/{id}/inspect</code> (Enrollments), and <code>GET /inspect</code> at the top level (one API key's records: the page asks for the key and keeps it in its memory only). On the diagram above it counts the records in each state, says how long the oldest has waited in a waiting state, and how many times each transition was taken; a click (or Enter) on a state lists its records oldest first, each opening its inspector. The data: <code>GET …/inspection/matters</code>, <code>…/inspection/deadlines</code>, <code>/firms/{id}/inspection/enrollments</code>, each with <code>…/states/{state}</code>. The inspector's <em>Model coverage</em> draws the coverage above on one record's machine.</p>

<h2 id="walk-through">Walk-through: a Matter to fulfilled, in a sandbox</h2>
<p>Sandbox workspaces run the same contract as the top level on synthetic state, keyless. With the service running (<code>npm start</code>):</p>
<pre tabindex="0">${h(WALK)}</pre>
<p>Ratified matter types: ${MATTER_TYPES.map((t) => `<code>${t}</code>`).join(', ')}. With the client <code>${h(FIXTURE.decliningClient)}</code> the Signer declines and the Matter waits for <code>POST …/client-direction</code>; with any other client, answer the Gig yourself with <code>POST …/gig-result</code> as the eligible fixture Signer <code>${FIXTURE.eligibleSigner}</code>.</p>

<h2 id="keys">Keys and access</h2>
<pre tabindex="0">${h(KEYS)}</pre>
<p>One key covers the whole surface; an unknown or malformed key is 401. A paid act that would pass the key's hard spend ceiling is 403 BLOCKED naming the ceiling. <code>X-Actor</code> and <code>X-Mandate</code> are carried as provenance, never as proof.</p>
<table><thead><tr><th>Tier</th><th></th><th>Grants</th><th>How</th></tr></thead><tbody>${tiers}</tbody></table>

<h2 id="catalog">Capability catalog</h2>
<p>Reads answer from a synthetic data set with <code>meta{gate, effect, metered}</code>; record routes answer draft artifacts with their sha256; <code>requiresAccess</code> doors answer 403 BLOCKED; <code>requiresSigner</code> acts answer the pending state <code>waiting_on_signer</code>. Record and act routes are top-level writes (a key), keyless inside a workspace.</p>
<table><thead><tr><th></th><th>Path</th><th>Effect</th><th>Gate</th><th>Price</th><th>Purpose</th></tr></thead><tbody>${catalog}</tbody></table>

<h2 id="errors">Refusals</h2>
<table><tbody>
<tr><td>400</td><td>a missing or unratified <code>matterType</code>; malformed JSON</td></tr>
<tr><td>401</td><td>a top-level write without a key, or an unknown or malformed key (names <code>POST /keys</code>)</td></tr>
<tr><td>403</td><td>BLOCKED: reserved scopes, restricted upstreams, the spend ceiling, doors whose tier is not live</td></tr>
<tr><td>404</td><td>an unknown Matter, Asset or ladder; an unknown or expired sandbox grain (typed EMPTY naming the fix)</td></tr>
<tr><td>409</td><td>the Matter waits on a Signer, is terminal, or was stopped by a Declination</td></tr>
<tr><td>422</td><td>the Gate refuses (naming the rule), or a field is missing or malformed</td></tr>
<tr><td>429</td><td>BLOCKED: the per-caller creation bound on sandbox grains</td></tr>
<tr><td>502</td><td>the supply network refused the Gig post; nothing was written</td></tr>
</tbody></table>
`,
  };
}
