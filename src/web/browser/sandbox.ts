/**
 * The sandbox page's script (`src/web/sandbox.ts` serves the page): a person
 * opens a workspace and walks a Matter with the magic fixtures, by clicking.
 * It calls only the public doors of the workspace (the same ones an agent
 * calls) and lists every exchange.
 */
import { FIXTURE } from '../../domain/fixtures.ts';
import type { JsonOf, Matter } from './contract.ts';
import { $, el } from './dom.ts';

/** The Matter machine's terminals, as the page was served with them. */
const TERMINALS: string[] = JSON.parse($('matter-terminals').textContent ?? '[]');
/** The workspace opened (its path) and the Matter shown. */
const state: { ws: string; matter: Matter | null } = { ws: '', matter: null };

const cell = (text: unknown) => el('td', { text: text === null || text === undefined ? '' : String(text) });

function log(method: string, path: string, status: number, body: unknown): void {
  $('exchanges').prepend(el('details', {}, el('summary', { text: `${method} ${path} → ${status}` }), el('pre', { text: JSON.stringify(body, null, 2) })));
}

/** A door's answer: its status, its body as the contract declares the success, and the refusal's words otherwise. */
interface Answer<T> {
  status: number;
  body: T;
  error: string;
}

async function api<T>(method: string, path: string, body?: unknown): Promise<Answer<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json();
  log(method, path, res.status, json);
  return { status: res.status, body: json, error: typeof json?.error === 'string' ? json.error : '' };
}

function busy(on: boolean): void {
  for (const b of document.querySelectorAll('button')) b.disabled = on || b.dataset.off === 'true';
  document.body.dataset.busy = on ? 'true' : 'false';
}

function allow(id: string, yes: boolean): void {
  const button = $(id, HTMLButtonElement);
  button.dataset.off = yes ? 'false' : 'true';
  button.disabled = !yes;
}

/** Runs one click's work with every button held; a failure to reach the service is said on the page. */
async function step(work: () => Promise<void>): Promise<void> {
  busy(true);
  try {
    await work();
  } catch (error) {
    $('message').textContent = `The page could not reach the service: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    busy(false);
  }
}

const say = (text: string) => {
  $('message').textContent = text;
};

const pillOf = (status: string) =>
  status === 'fulfilled' ? 'ok' : TERMINALS.includes(status) ? 'bad' : status === 'waiting_on_signer' || status === 'needs_client_direction' ? 'warn' : '';

function showMatter(matter: Matter, note?: string): void {
  state.matter = matter;
  $('matter-id').textContent = matter.id;
  const status = $('status');
  status.textContent = matter.status;
  status.dataset.status = matter.status;
  status.className = `pill ${pillOf(matter.status)}`;
  $('stage').textContent = matter.stage;
  $('gig').textContent = matter.pendingGigId ? `${matter.pendingGigId} (${matter.pendingAct})` : 'none';
  // The Matter's JSON links its inspector page: the diagram, its path, its doors and its journal, live.
  $('inspect', HTMLAnchorElement).href = matter.links?.inspect ?? `${state.ws}/matters/${matter.id}/inspect`;
  say(note ?? '');
  const open = !TERMINALS.includes(matter.status);
  allow('advance', open && matter.status !== 'waiting_on_signer' && matter.status !== 'needs_client_direction');
  allow('attest', matter.status === 'waiting_on_signer');
  allow('direction', matter.status === 'needs_client_direction');
}

/** The Matter shown now: every button that acts on one is enabled only once one is. */
function shown(): Matter {
  if (!state.matter) throw new Error('no Matter is open yet');
  return state.matter;
}

async function refreshJournal(): Promise<void> {
  const matter = shown();
  const res = await api<JsonOf<'get_workspaces_workspaceId_matters_id_journal', 200>>('GET', `${state.ws}/matters/${matter.id}/journal`);
  $('journal').replaceChildren(...(res.body.events ?? []).map((e) => el('tr', {}, cell(e.seq), cell(e.kind), cell(e.verb), cell(e.by), cell(e.note))));
  if (matter.status === 'fulfilled') {
    const s = await api<JsonOf<'get_workspaces_workspaceId_matters_id_settlement', 200>>('GET', `${state.ws}/matters/${matter.id}/settlement`);
    $('settlement').textContent = JSON.stringify(s.body.settlement, null, 2);
    $('settlement-card').hidden = false;
  }
}

$('open-workspace').addEventListener('click', () =>
  step(async () => {
    const res = await api<JsonOf<'post_workspaces', 201>>('POST', '/workspaces');
    if (res.status !== 201) return say(res.error);
    state.ws = `/workspaces/${res.body.workspace.id}`;
    $('workspace-id').textContent = res.body.workspace.id;
    $('workspace-expires').textContent = res.body.workspace.expiresAt;
    const fixtures = await api<JsonOf<'get_workspaces_workspaceId_fixtures', 200>>('GET', `${state.ws}/fixtures`);
    $('fixtures').replaceChildren(...fixtures.body.fixtures.map((f) => el('tr', {}, cell(f.name), cell(`${f.use.field} = ${f.use.value}`), cell(f.promise))));
    $('matter-card').hidden = false;
    allow('open-matter', true);
  }),
);

$('open-matter').addEventListener('click', () =>
  step(async () => {
    const body = { matterType: $('matter-type', HTMLSelectElement).value, client: { name: $('client', HTMLSelectElement).value }, asset: { title: $('asset-title', HTMLInputElement).value || 'Untitled invention' } };
    const res = await api<JsonOf<'post_workspaces_workspaceId_matters', 201>>('POST', `${state.ws}/matters`, body);
    if (res.status !== 201) return say(res.error);
    $('walk-card').hidden = false;
    $('settlement-card').hidden = true;
    showMatter(res.body.matter, 'Opened in intake; its Asset was minted.');
    await refreshJournal();
  }),
);

$('advance').addEventListener('click', () =>
  step(async () => {
    const res = await api<JsonOf<'post_workspaces_workspaceId_matters_id_advance', 200>>('POST', `${state.ws}/matters/${shown().id}/advance`, {});
    if (res.status !== 200) return say(res.error);
    const { committed, escalated } = res.body;
    const note = committed
      ? `The Gate committed ${committed.advanceTo}.`
      : escalated
        ? `The reserved act ${escalated.reservedAct} was posted as Gig ${escalated.gigId}${escalated.answered ? `; the Signer answered: ${escalated.answered}` : '; it waits on a Signer'}.`
        : '';
    showMatter(res.body.matter, note);
    await refreshJournal();
  }),
);

/** A synthetic artifact hash: 32 random bytes as `sha256:<hex>`. */
function syntheticHash(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `sha256:${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

$('attest').addEventListener('click', () =>
  step(async () => {
    const m = shown();
    const attestation = { signedBy: FIXTURE.eligibleSigner, credentialRef: m.rail === 'patent' ? 'uspto-reg:70001' : 'state-bar:CA-300001', artifactHash: syntheticHash() };
    const res = await api<JsonOf<'post_workspaces_workspaceId_matters_id_gig_result', 200>>('POST', `${state.ws}/matters/${m.id}/gig-result`, { gigId: m.pendingGigId, outcome: 'attested', attestation });
    if (res.status !== 200) return say(res.error);
    showMatter(res.body.matter, 'The eligible fixture Signer attested.');
    await refreshJournal();
  }),
);

$('direction').addEventListener('click', () =>
  step(async () => {
    const res = await api<JsonOf<'post_workspaces_workspaceId_matters_id_client_direction', 200>>('POST', `${state.ws}/matters/${shown().id}/client-direction`, { instruction: 'Proceed as drafted.' });
    if (res.status !== 200) return say(res.error);
    showMatter(res.body.matter, 'The Client spoke; a fresh Gig was posted.');
    await refreshJournal();
  }),
);

busy(false);
document.body.dataset.ready = 'true';
