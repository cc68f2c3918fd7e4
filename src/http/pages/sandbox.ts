/**
 * The sandbox page: a person opens a workspace and walks a Matter with the
 * magic fixtures, by clicking. The page's script only calls the public doors
 * of the workspace (the same ones an agent calls) and shows every exchange.
 */
import { FIXTURE } from '../../domain/fixtures.ts';
import { MATTER_TYPES } from '../../domain/matter-types.ts';
import { TERMINALS } from '../../../machines/matter.ts';
import { escapeHtml as h, type Page } from './layout.ts';

const SCRIPT = String.raw`
const $ = (id) => document.getElementById(id);
const state = { ws: null, matter: null };
const TERMINALS = ${JSON.stringify(TERMINALS)};

function cell(text) { const td = document.createElement('td'); td.textContent = text == null ? '' : String(text); return td; }

function log(method, path, status, body) {
  const entry = document.createElement('details');
  const summary = document.createElement('summary');
  summary.textContent = method + ' ' + path + ' → ' + status;
  const pre = document.createElement('pre');
  pre.textContent = JSON.stringify(body, null, 2);
  entry.append(summary, pre);
  $('exchanges').prepend(entry);
}

async function api(method, path, body) {
  const init = { method, headers: { accept: 'application/json' } };
  if (body !== undefined) { init.headers['content-type'] = 'application/json'; init.body = JSON.stringify(body); }
  const res = await fetch(path, init);
  const json = await res.json();
  log(method, path, res.status, json);
  return { status: res.status, body: json };
}

function busy(on) {
  for (const b of document.querySelectorAll('button')) b.disabled = on || b.dataset.off === 'true';
  document.body.dataset.busy = on ? 'true' : 'false';
}

function allow(id, yes) { $(id).dataset.off = yes ? 'false' : 'true'; $(id).disabled = !yes; }

async function step(work) {
  busy(true);
  try { await work(); } catch (error) { $('message').textContent = 'The page could not reach the service: ' + error.message; }
  finally { busy(false); }
}

function showMatter(matter, note) {
  state.matter = matter;
  $('matter-id').textContent = matter.id;
  $('status').textContent = matter.status;
  $('status').dataset.status = matter.status;
  $('status').className = 'pill ' + (matter.status === 'fulfilled' ? 'ok' : TERMINALS.includes(matter.status) ? 'bad' : matter.status === 'waiting_on_signer' || matter.status === 'needs_client_direction' ? 'warn' : '');
  $('stage').textContent = matter.stage;
  $('gig').textContent = matter.pendingGigId ? matter.pendingGigId + ' (' + matter.pendingAct + ')' : 'none';
  // The Matter's JSON links its inspector page: the diagram, its path, its doors and its journal, live.
  $('inspect').href = matter.links && matter.links.inspect ? matter.links.inspect : state.ws + '/matters/' + matter.id + '/inspect';
  $('message').textContent = note || '';
  const open = !TERMINALS.includes(matter.status);
  allow('advance', open && matter.status !== 'waiting_on_signer' && matter.status !== 'needs_client_direction');
  allow('attest', matter.status === 'waiting_on_signer');
  allow('direction', matter.status === 'needs_client_direction');
}

async function refreshJournal() {
  const res = await api('GET', state.ws + '/matters/' + state.matter.id + '/journal');
  const rows = $('journal');
  rows.replaceChildren();
  for (const e of res.body.events || []) {
    const tr = document.createElement('tr');
    tr.append(cell(e.seq), cell(e.kind), cell(e.verb), cell(e.by), cell(e.summary || e.note));
    rows.append(tr);
  }
  if (state.matter.status === 'fulfilled') {
    const s = await api('GET', state.ws + '/matters/' + state.matter.id + '/settlement');
    $('settlement').textContent = JSON.stringify(s.body.settlement, null, 2);
    $('settlement-card').hidden = false;
  }
}

$('open-workspace').addEventListener('click', () => step(async () => {
  const res = await api('POST', '/workspaces');
  if (res.status !== 201) { $('message').textContent = res.body.error; return; }
  state.ws = '/workspaces/' + res.body.workspace.id;
  $('workspace-id').textContent = res.body.workspace.id;
  $('workspace-expires').textContent = res.body.workspace.expiresAt;
  const fixtures = await api('GET', state.ws + '/fixtures');
  const rows = $('fixtures');
  rows.replaceChildren();
  for (const f of fixtures.body.fixtures) {
    const tr = document.createElement('tr');
    tr.append(cell(f.name), cell(f.use.field + ' = ' + f.use.value), cell(f.promise));
    rows.append(tr);
  }
  $('matter-card').hidden = false;
  allow('open-matter', true);
}));

$('open-matter').addEventListener('click', () => step(async () => {
  const body = { matterType: $('matter-type').value, client: { name: $('client').value }, asset: { title: $('asset-title').value || 'Untitled invention' } };
  const res = await api('POST', state.ws + '/matters', body);
  if (res.status !== 201) { $('message').textContent = res.body.error; return; }
  $('walk-card').hidden = false;
  $('settlement-card').hidden = true;
  showMatter(res.body.matter, 'Opened in intake; its Asset was minted.');
  await refreshJournal();
}));

$('advance').addEventListener('click', () => step(async () => {
  const res = await api('POST', state.ws + '/matters/' + state.matter.id + '/advance', {});
  if (res.status !== 200) { $('message').textContent = res.body.error; return; }
  const note = res.body.committed ? 'The Gate committed ' + res.body.committed.advanceTo + '.' : res.body.escalated ? 'The reserved act ' + res.body.escalated.reservedAct + ' was posted as Gig ' + res.body.escalated.gigId + (res.body.escalated.answered ? '; the Signer answered: ' + res.body.escalated.answered : '; it waits on a Signer') + '.' : '';
  showMatter(res.body.matter, note);
  await refreshJournal();
}));

function syntheticHash() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return 'sha256:' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

$('attest').addEventListener('click', () => step(async () => {
  const m = state.matter;
  const attestation = { signedBy: '${FIXTURE.eligibleSigner}', credentialRef: m.rail === 'patent' ? 'uspto-reg:70001' : 'state-bar:CA-300001', artifactHash: syntheticHash() };
  const res = await api('POST', state.ws + '/matters/' + m.id + '/gig-result', { gigId: m.pendingGigId, outcome: 'attested', attestation });
  if (res.status !== 200) { $('message').textContent = res.body.error; return; }
  showMatter(res.body.matter, 'The eligible fixture Signer attested.');
  await refreshJournal();
}));

$('direction').addEventListener('click', () => step(async () => {
  const res = await api('POST', state.ws + '/matters/' + state.matter.id + '/client-direction', { instruction: 'Proceed as drafted.' });
  if (res.status !== 200) { $('message').textContent = res.body.error; return; }
  showMatter(res.body.matter, 'The Client spoke; a fresh Gig was posted.');
  await refreshJournal();
}));

busy(false);
document.body.dataset.ready = 'true';
`;

export function sandboxPage(): Page {
  const types = MATTER_TYPES.map((t) => `<option value="${t}"${t === 'patent_provisional' ? ' selected' : ''}>${t}</option>`).join('');
  return {
    title: 'Sandbox',
    path: '/sandbox',
    script: SCRIPT,
    body: `
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
