/**
 * The sandbox page: a person opens a workspace and walks a Matter with the
 * magic fixtures, by clicking. The page's script (`browser/sandbox.ts`) only
 * calls the public doors of the workspace (the same ones an agent calls) and
 * shows every exchange.
 */
import { FIXTURE } from '../domain/fixtures.ts';
import { MATTER_TYPES } from '../domain/matter-types.ts';
import { TERMINALS } from '../../machines/matter.ts';
import { dataBlock, escapeHtml as h, type Page } from './layout.ts';

export function sandboxPage(): Page {
  const types = MATTER_TYPES.map((t) => `<option value="${t}"${t === 'patent_provisional' ? ' selected' : ''}>${t}</option>`).join('');
  return {
    title: 'Sandbox',
    path: '/sandbox',
    script: 'sandbox',
    body: `
${dataBlock('matter-terminals', TERMINALS)}
<h1>Sandbox</h1>
<p>Open a keyless sandbox workspace and walk a Matter through its stages by clicking. Everything here is synthetic and expires with the workspace; each click calls the same public doors an agent calls, and every exchange is listed below.</p>
<p id="message" class="note" role="status" aria-live="polite"></p>

<section class="card" id="workspace-card">
<h2>1. A workspace</h2>
<div class="row"><button id="open-workspace">Open a workspace</button> <span>workspace <code id="workspace-id">none yet</code>, expires <code id="workspace-expires">—</code></span></div>
<table><thead><tr><th>Fixture</th><th>Use</th><th>Promise</th></tr></thead><tbody id="fixtures"></tbody></table>
</section>

<section class="card" id="matter-card" hidden>
<h2>2. A Matter</h2>
<label for="matter-type">Matter type</label><select id="matter-type">${types}</select>
<label for="client">Client</label>
<select id="client">
<option value="${h(FIXTURE.fulfillingClient)}" selected>${h(FIXTURE.fulfillingClient)}: every Gig attested at once</option>
<option value="${h(FIXTURE.decliningClient)}">${h(FIXTURE.decliningClient)}: every Gig declined</option>
<option value="Ada Inventor">Ada Inventor: you answer each Gig as the Signer</option>
</select>
<label for="asset-title">Asset title</label><input id="asset-title" value="Self-folding map">
<div class="row"><button id="open-matter" data-off="true" disabled>Open a Matter</button></div>
</section>

<section class="card" id="walk-card" hidden>
<h2>3. Walk it</h2>
<p>Matter <code id="matter-id"></code>: status <span id="status" class="pill"></span>, stage <code id="stage"></code>, pending Gig <code id="gig">none</code></p>
<p><a id="inspect" href="#" target="_blank" rel="noopener">Inspect this Matter on its machine</a> (opens beside this page and follows each click live)</p>
<div class="row">
<button id="advance" data-off="true" disabled>Advance</button>
<button id="attest" class="secondary" data-off="true" disabled>Attest as ${FIXTURE.eligibleSigner}</button>
<button id="direction" class="secondary" data-off="true" disabled>Give the Client's direction</button>
</div>
<h3>Journal</h3>
<table><thead><tr><th>seq</th><th>kind</th><th>verb</th><th>by</th><th>summary</th></tr></thead><tbody id="journal"></tbody></table>
</section>

<section class="card" id="settlement-card" hidden>
<h2>4. Settlement</h2>
<p>No filing, no charge: the settlement exists once the Matter is fulfilled.</p>
<pre id="settlement"></pre>
</section>

<h2>Exchanges</h2>
<div id="exchanges"></div>
`,
  };
}
