/**
 * The published public-contract suite, `legalwork-contract@1`: declarative
 * GET rows over live doors, each of which must hold against any running
 * legalwork service, whatever state it is in (empty or busy). Rows that need
 * an id use a well-formed id no service ever issues, so they pin the typed
 * not-found answer; rows over the capability catalog pin the synthetic data.
 *
 * The pin is the sha256 of the exact bytes `GET /verify/suite.json` serves;
 * those bytes are made here, once, so the page, the document and the runner
 * agree on them.
 */
import { sha256Hex } from '../domain/hash.ts';

export const SUITE_NAME = 'legalwork-contract';
export const SUITE_VERSION = 1;
export const SUITE_ID = `${SUITE_NAME}@${SUITE_VERSION}`;

/** What a row expects of the answer, beyond its status. */
export interface Expectation {
  /** Media type the Content-Type header must start with; empty for an answer with no body (a 304, which must have none). */
  contentType: string;
  /** JSON: the `type` field, or one of several. */
  type?: string | string[];
  /** JSON: dotted paths that must be present. */
  has?: string[];
  /** JSON: dotted paths and the exact (deep-equal) value each must hold. */
  equals?: Record<string, unknown>;
  /** Text: substrings the body must contain. */
  contains?: string[];
}

export interface Requirement {
  id: string;
  method: 'GET';
  path: string;
  status: number;
  headers?: Record<string, string>;
  expect: Expectation;
  why: string;
}

export interface SuiteDocument {
  $type: 'Suite';
  name: string;
  version: number;
  description: string;
  requirements: Requirement[];
}

/** Well-formed ids that no service issues (issued ids carry 128 random bits). */
export const ABSENT = { matter: 'mt_0000000000000000000000000', asset: 'as_0000000000000000000000000', workspace: 'ws_0000000000000000000000000', tenant: 'tn_0000000000000000000000000', firm: 'fm_0000000000000000000000000', webhook: 'wh_0000000000000000000000000' };

const JSON_ = 'application/json';
const row = (id: string, path: string, status: number, expect: Partial<Expectation>, why: string, headers?: Record<string, string>): Requirement => ({
  id,
  method: 'GET',
  path,
  status,
  ...(headers ? { headers } : {}),
  expect: { contentType: JSON_, ...expect },
  why,
});

const WS = `/workspaces/${ABSENT.workspace}`;
const TN = `/tenants/${ABSENT.tenant}`;
const FM = `/firms/${ABSENT.firm}`;
const goneWorkspace = { type: 'EMPTY', equals: { fix: 'POST /workspaces' } };
const goneTenant = { type: 'EMPTY', equals: { fix: 'POST /tenants' } };
const goneFirm = { type: 'EMPTY', equals: { fix: 'POST /firms' } };
const M = `/matters/${ABSENT.matter}`;
const P = '/patent/US10000101B2';

const REQUIREMENTS: Requirement[] = [
  // Discovery and proof.
  row('healthz', '/healthz', 200, { type: 'OK', equals: { status: 'live', service: 'legalwork' } }, 'typed liveness'),
  row('pricing', '/pricing', 200, { type: 'OK', equals: { $type: 'PricingDocument', currency: 'USD', model: 'free', 'postedPrices.provisionalFilingUsd': 199, 'postedPrices.utilityFilingUsd': 799, feeShape: 'flat' } }, 'the Pricing Document posts the flat prices'),
  row('icp', '/icp.json', 200, { has: ['agentClasses', 'accessTiers'], equals: { 'accessTiers.0.tier': 'anonymous', 'accessTiers.3.tier': 'delegated' } }, 'agent classes and the access-tier ladder'),
  row('agents-card', '/.well-known/agents.json', 200, { has: ['http.routes', 'mcp.command', 'tiers', 'probes'], equals: { name: 'legalwork' } }, 'the capability card and probe manifest'),
  row('a2a-card', '/.well-known/agent-card.json', 200, { has: ['skills', 'capabilities', 'defaultInputModes', 'defaultOutputModes', 'url', 'version'], equals: { name: 'legalwork' } }, 'the capability card in the A2A shape'),
  row('llms-txt', '/llms.txt', 200, { contentType: 'text/plain', contains: ['# legalwork', '/openapi.json'] }, 'plain text for models, per the llms.txt convention'),
  row('catalog', '/catalog', 200, { type: 'EMPTY', has: ['meterPromise.promise', 'skuContract', 'message'], equals: { skus: [] } }, 'typed EMPTY: zero SKUs, with the SKU declaration contract'),
  row('openapi', '/openapi.json', 200, { equals: { openapi: '3.1.0', 'info.version': '0.3.0' }, has: ['paths./matters.post', 'components.securitySchemes.bearer'] }, 'the machine contract'),
  row('suite', '/verify/suite.json', 200, { equals: { $type: 'Suite', name: SUITE_NAME, version: SUITE_VERSION }, has: ['requirements.0.path'] }, 'this suite'),
  row('verify-page', '/verify', 200, { contentType: 'text/html', contains: [SUITE_ID, 'sha256'] }, 'the suite page names the suite and its pin'),
  row('docs-page', '/docs', 200, { contentType: 'text/html', contains: ['legalwork', '/openapi.json'] }, 'the docs page for people'),
  row('sandbox-page', '/sandbox', 200, { contentType: 'text/html', contains: ['legalwork', 'workspace'] }, 'the sandbox page for people'),
  // Matters and assets at the top level.
  row('matters-list-keyless', '/matters', 200, { type: 'EMPTY', has: ['message'] }, 'the top level lists a key\'s own Matters: without a key, a typed EMPTY naming the fix'),
  row('matters-tag-empty', '/matters?tag=no_such_tag', 200, { type: 'EMPTY' }, 'a tag matching nothing is a typed EMPTY, never a bare array'),
  row('matters-list-unchanged', '/matters', 304, { contentType: '' }, 'a page answers an ETag of its bytes; If-None-Match naming it (here `*`: any) is 304 Not Modified with no body', { 'if-none-match': '*' }),
  row('matters-scope-blocked', '/matters?scope=admin', 403, { type: 'BLOCKED', has: ['error', 'code'] }, 'reserved scopes are BLOCKED'),
  row('matter-404', M, 404, { has: ['error', 'code'] }, 'an unknown Matter is 404 with a worded error'),
  row('matter-404-unconditional', M, 404, { has: ['error', 'code'] }, 'a refusal ignores If-None-Match: the 404, never a 304', { 'if-none-match': '*' }),
  row('matter-journal-404', `${M}/journal`, 404, { has: ['error'] }, 'journal of an unknown Matter'),
  row('matter-attestations-404', `${M}/attestations`, 404, { has: ['error'] }, 'attestations of an unknown Matter'),
  row('matter-documents-404', `${M}/documents`, 404, { has: ['error'] }, 'documents of an unknown Matter'),
  row('matter-settlement-404', `${M}/settlement`, 404, { has: ['error'] }, 'settlement of an unknown Matter'),
  row('assets-list-keyless', '/assets', 200, { type: 'EMPTY', has: ['message'] }, 'the top level lists a key\'s own Assets: without a key, a typed EMPTY naming the fix'),
  row('asset-404', `/assets/${ABSENT.asset}`, 404, { has: ['error', 'code'] }, 'an unknown Asset is 404'),
  // A key's own state needs that key.
  row('keys-self-keyless', '/keys/self', 401, { equals: { code: 'KEY_REQUIRED', fix: 'POST /keys' } }, 'a key\'s state (GET /keys/self) answers only the key itself: keyless, 401 naming POST /keys'),
  // Sandbox workspaces: an unknown one is a typed EMPTY naming the fix.
  row('workspace-404', WS, 404, goneWorkspace, 'an unknown or expired workspace names the fix'),
  row('workspace-fixtures-404', `${WS}/fixtures`, 404, goneWorkspace, 'fixtures of an unknown workspace'),
  row('workspace-matters-404', `${WS}/matters`, 404, goneWorkspace, 'Matters of an unknown workspace'),
  row('workspace-matter-404', `${WS}${M}`, 404, goneWorkspace, 'a Matter of an unknown workspace'),
  row('workspace-matter-journal-404', `${WS}${M}/journal`, 404, goneWorkspace, 'a journal in an unknown workspace'),
  row('workspace-matter-attestations-404', `${WS}${M}/attestations`, 404, goneWorkspace, 'attestations in an unknown workspace'),
  row('workspace-matter-documents-404', `${WS}${M}/documents`, 404, goneWorkspace, 'documents in an unknown workspace'),
  row('workspace-matter-settlement-404', `${WS}${M}/settlement`, 404, goneWorkspace, 'a settlement in an unknown workspace'),
  row('workspace-assets-404', `${WS}/assets`, 404, goneWorkspace, 'Assets of an unknown workspace'),
  row('workspace-asset-404', `${WS}/assets/${ABSENT.asset}`, 404, goneWorkspace, 'an Asset of an unknown workspace'),
  // The capability catalog over the synthetic data set.
  row('patent-search', '/patent/search?q=folding%20map', 200, { type: 'OK', equals: { 'results.0.number': 'US10000101B2', 'meta.effect': 'read', 'meta.gate': 'none', 'meta.metered': false } }, 'search answers typed results with meta'),
  row('patent-search-empty', '/patent/search?q=zeppelin', 200, { type: 'EMPTY', equals: { 'meta.effect': 'read' } }, 'no match is a typed EMPTY'),
  row('patent', P, 200, { type: 'OK', equals: { 'patent.number': 'US10000101B2', 'patent.title': 'Self-folding paper map with memory creases', 'meta.gate': 'none' } }, 'a patent record'),
  row('patent-404', '/patent/US99999999B2', 404, { type: 'EMPTY', equals: { 'meta.metered': false } }, 'a not-found never meters'),
  row('patent-family', `${P}/family`, 200, { type: 'OK', equals: { 'family.familyId': 'FAM-0001', 'family.members.1.number': 'US10000202B2' } }, 'the family'),
  row('patent-status', `${P}/status`, 200, { type: 'OK', equals: { 'status.current': 'active' } }, 'legal status'),
  row('patent-assignment', `${P}/assignment`, 200, { type: 'OK', equals: { 'results.0.assignee': 'Cartofold Synthetic Inc.' } }, 'recorded assignments'),
  row('patent-citations', `${P}/citations`, 200, { type: 'OK', equals: { 'citedBy.0.number': 'US10000202B2' } }, 'citations, both directions'),
  row('patent-ptab-empty', `${P}/ptab`, 200, { type: 'EMPTY' }, 'no trial proceeding is a typed EMPTY'),
  row('patent-maintenance', `${P}/maintenance`, 200, { type: 'OK', equals: { 'windows.0.window': '3.5', 'windows.0.state': 'paid' } }, 'maintenance windows'),
  row('trademark-status', '/trademark/97000101/status', 200, { type: 'OK', equals: { 'trademark.mark': 'CARTOFOLD' } }, 'a trademark status'),
  row('entity-standing', '/entity/DE/7000101/standing', 200, { type: 'OK', equals: { 'entity.standing': 'good standing' } }, 'an entity standing'),
  row('ucc-filing', '/lien/ucc/DE/20230001010', 200, { type: 'OK', equals: { 'filing.status': 'active' } }, 'a UCC financing statement'),
  row('court-docket-blocked', '/court/nysd/1:23-cv-00001/docket', 403, { type: 'BLOCKED', equals: { requiresAccess: 'pacer', code: 'ACCESS_REQUIRED' } }, 'a restricted upstream is BLOCKED, never degraded'),
  row('workspace-patent-search-404', `${WS}/patent/search?q=map`, 404, goneWorkspace, 'the catalog inside an unknown workspace'),
  row('workspace-patent-404', `${WS}${P}`, 404, goneWorkspace, 'a patent read inside an unknown workspace'),
  ...['family', 'status', 'assignment', 'citations', 'ptab', 'maintenance'].map((s) => row(`workspace-patent-${s}-404`, `${WS}${P}/${s}`, 404, goneWorkspace, `patent ${s} inside an unknown workspace`)),
  row('workspace-trademark-404', `${WS}/trademark/97000101/status`, 404, goneWorkspace, 'a trademark read inside an unknown workspace'),
  row('workspace-entity-404', `${WS}/entity/DE/7000101/standing`, 404, goneWorkspace, 'an entity read inside an unknown workspace'),
  row('workspace-ucc-404', `${WS}/lien/ucc/DE/20230001010`, 404, goneWorkspace, 'a UCC read inside an unknown workspace'),
  row('workspace-court-blocked', `${WS}/court/nysd/1:23-cv-00001/docket`, 403, { type: 'BLOCKED', equals: { requiresAccess: 'pacer' } }, 'the restricted upstream is BLOCKED in every grain'),
  // Deadlines and the event tail.
  row('deadline-404', `/deadlines/${ABSENT.asset}`, 404, { has: ['error', 'code'] }, 'an Asset without a ladder here is 404'),
  row('workspace-deadline-404', `${WS}/deadlines/${ABSENT.asset}`, 404, goneWorkspace, 'a ladder of an unknown workspace'),
  row('events-keyless', '/events', 200, { type: 'EMPTY', has: ['latestSeq', 'message'], equals: { appendOnly: true, feed: 'timeline' } }, 'the top-level tail is a key\'s own: without a key, a typed EMPTY naming the fix'),
  row('events-reminders-keyless', '/events?feed=reminders&after=0&limit=5', 200, { type: 'EMPTY', equals: { feed: 'reminders' } }, 'a feed of the tail, likewise'),
  row('events-unchanged', '/events', 304, { contentType: '' }, 'a tail page answers an ETag; If-None-Match naming it is 304 with no body', { 'if-none-match': '*' }),
  row('events-feed-422', '/events?feed=gossip', 422, { has: ['error', 'code'] }, 'a feed off the enum is 422'),
  row('events-stream-keyless', '/events/stream', 200, { type: 'EMPTY', has: ['message'], equals: { appendOnly: true } }, 'without a key there is nothing of yours to follow at the top level: a typed EMPTY naming the fix, never a hung request'),
  row('workspace-events-404', `${WS}/events`, 404, goneWorkspace, 'the tail of an unknown workspace'),
  row('workspace-events-stream-404', `${WS}/events/stream`, 404, goneWorkspace, 'the stream of an unknown workspace'),
  // Webhook endpoints: a key's own at the top level, a grain's inside one.
  row('webhooks-keyless', '/webhooks', 200, { type: 'EMPTY', has: ['message'] }, 'the top-level endpoints are a key\'s own: without a key, a typed EMPTY naming the fix'),
  row('webhook-404', `/webhooks/${ABSENT.webhook}`, 404, { type: 'EMPTY', equals: { code: 'WEBHOOK_NOT_FOUND' } }, 'an endpoint that is not yours is a typed EMPTY'),
  row('webhook-deliveries-404', `/webhooks/${ABSENT.webhook}/deliveries`, 404, { type: 'EMPTY', equals: { code: 'WEBHOOK_NOT_FOUND' } }, 'so are its deliveries'),
  ...['webhooks', `webhooks/${ABSENT.webhook}`, `webhooks/${ABSENT.webhook}/deliveries`].map((tail) => row(`workspace-${tail.replace(/[a-z]{2}_0+/g, 'x').replace(/\//g, '-')}-404`, `${WS}/${tail}`, 404, goneWorkspace, `${tail.split('/')[0]} of an unknown workspace`)),
  // Conflicts ledgers: never pooled; per-practitioner ledgers BLOCKED on the top-level surface.
  row('conflicts-pooled-blocked', '/conflicts', 403, { type: 'BLOCKED', has: ['error', 'code'] }, 'ledgers are never pooled'),
  row('conflicts-ledger-blocked', '/conflicts/pr_example', 403, { type: 'BLOCKED', has: ['upgrade.tier'] }, 'the top-level ledger names the upgrade path'),
  row('workspace-conflicts-404', `${WS}/conflicts`, 404, goneWorkspace, 'conflicts of an unknown workspace'),
  row('workspace-conflicts-ledger-404', `${WS}/conflicts/pr_example`, 404, goneWorkspace, 'a ledger of an unknown workspace'),
  // Tenants.
  row('tenant-404', TN, 404, goneTenant, 'an unknown or expired tenant names the fix'),
  ...['matters', `matters/${ABSENT.matter}`, `matters/${ABSENT.matter}/journal`, `matters/${ABSENT.matter}/attestations`, `matters/${ABSENT.matter}/documents`, `matters/${ABSENT.matter}/settlement`, 'assets', `assets/${ABSENT.asset}`, `deadlines/${ABSENT.asset}`, 'events', 'events/stream', 'webhooks', `webhooks/${ABSENT.webhook}`, `webhooks/${ABSENT.webhook}/deliveries`].map((tail) =>
    row(`tenant-${tail.replace(/[a-z]{2}_0+/g, 'x').replace(/\//g, '-')}-404`, `${TN}/${tail}`, 404, goneTenant, `${tail.split('/')[0]} of an unknown tenant`),
  ),
  // Firms.
  row('firm-404', FM, 404, goneFirm, 'an unknown or expired firm names the fix'),
  ...['enrollments', 'roster', 'fixtures', 'routing', 'remittances', 'conflicts', 'events', 'events/stream'].map((tail) => row(`firm-${tail.replace('/', '-')}-404`, `${FM}/${tail}`, 404, goneFirm, `${tail} of an unknown firm`)),
  // The inspection (a record on its machine), wherever its record's doors are: keyless by id, a typed not-found like the record's own read.
  row('matter-inspection-404', `${M}/inspection`, 404, { has: ['error', 'code'], equals: { code: 'MATTER_NOT_FOUND' } }, 'the inspection of an unknown Matter is 404 like the Matter'),
  row('deadline-inspection-404', `/deadlines/${ABSENT.asset}/inspection`, 404, { has: ['error', 'code'], equals: { code: 'LADDER_NOT_FOUND' } }, 'the inspection of a ladder not here is 404 like the ladder'),
  row('workspace-matter-inspection-404', `${WS}${M}/inspection`, 404, goneWorkspace, 'an inspection in an unknown workspace'),
  row('workspace-deadline-inspection-404', `${WS}/deadlines/${ABSENT.asset}/inspection`, 404, goneWorkspace, 'a ladder\'s inspection in an unknown workspace'),
  row('tenant-matter-inspection-404', `${TN}${M}/inspection`, 404, goneTenant, 'an inspection in an unknown tenant'),
  row('tenant-deadline-inspection-404', `${TN}/deadlines/${ABSENT.asset}/inspection`, 404, goneTenant, 'a ladder\'s inspection in an unknown tenant'),
  row('firm-enrollment-inspection-404', `${FM}/enrollments/mb_fixture_eligible/inspection`, 404, goneFirm, 'an Enrollment\'s inspection in an unknown firm'),
  // Each inspector page is answered by the code of the inspection beside it: an unknown record or grain is the same refusal.
  row('matter-inspect-page-404', `${M}/inspect`, 404, { has: ['error', 'code'], equals: { code: 'MATTER_NOT_FOUND' } }, 'the inspector page of an unknown Matter is 404 like its inspection'),
  row('deadline-inspect-page-404', `/deadlines/${ABSENT.asset}/inspect`, 404, { has: ['error', 'code'], equals: { code: 'LADDER_NOT_FOUND' } }, 'the inspector page of a ladder not here'),
  row('workspace-matter-inspect-page-404', `${WS}${M}/inspect`, 404, goneWorkspace, 'an inspector page in an unknown workspace'),
  row('workspace-deadline-inspect-page-404', `${WS}/deadlines/${ABSENT.asset}/inspect`, 404, goneWorkspace, 'a ladder\'s inspector page in an unknown workspace'),
  row('tenant-matter-inspect-page-404', `${TN}${M}/inspect`, 404, goneTenant, 'an inspector page in an unknown tenant'),
  row('tenant-deadline-inspect-page-404', `${TN}/deadlines/${ABSENT.asset}/inspect`, 404, goneTenant, 'a ladder\'s inspector page in an unknown tenant'),
  row('firm-enrollment-inspect-page-404', `${FM}/enrollments/mb_fixture_eligible/inspect`, 404, goneFirm, 'an Enrollment\'s inspector page in an unknown firm'),
  // Where records gather, as data: at the top level a key's own records (keyless, a typed EMPTY naming the fix); a grain's refuse an unknown grain.
  row('population-matters-keyless', '/inspection/matters', 200, { type: 'EMPTY', has: ['message', 'machine.diagram'] }, 'where a key\'s Matters gather: keyless, a typed EMPTY naming the fix, with the machine to draw'),
  row('population-matters-state-keyless', '/inspection/matters/states/open.intake', 200, { type: 'EMPTY', has: ['message'] }, 'one state\'s Matters: keyless, a typed EMPTY'),
  row('population-deadlines-keyless', '/inspection/deadlines', 200, { type: 'EMPTY', has: ['message', 'machine.diagram'] }, 'where a key\'s ladders gather: keyless, a typed EMPTY'),
  row('population-deadlines-state-keyless', '/inspection/deadlines/states/resolved', 200, { type: 'EMPTY', has: ['message'] }, 'one state\'s ladders: keyless, a typed EMPTY'),
  row('workspace-population-matters-404', `${WS}/inspection/matters`, 404, goneWorkspace, 'the population of an unknown workspace'),
  row('workspace-population-matters-state-404', `${WS}/inspection/matters/states/open.intake`, 404, goneWorkspace, 'one state of an unknown workspace'),
  row('workspace-population-deadlines-404', `${WS}/inspection/deadlines`, 404, goneWorkspace, 'the ladders of an unknown workspace'),
  row('workspace-population-deadlines-state-404', `${WS}/inspection/deadlines/states/resolved`, 404, goneWorkspace, 'one ladder state of an unknown workspace'),
  row('tenant-population-matters-404', `${TN}/inspection/matters`, 404, goneTenant, 'the population of an unknown tenant'),
  row('tenant-population-matters-state-404', `${TN}/inspection/matters/states/open.intake`, 404, goneTenant, 'one state of an unknown tenant'),
  row('tenant-population-deadlines-404', `${TN}/inspection/deadlines`, 404, goneTenant, 'the ladders of an unknown tenant'),
  row('tenant-population-deadlines-state-404', `${TN}/inspection/deadlines/states/resolved`, 404, goneTenant, 'one ladder state of an unknown tenant'),
  row('firm-population-enrollments-404', `${FM}/inspection/enrollments`, 404, goneFirm, 'the Enrollments of an unknown firm'),
  row('firm-population-enrollments-state-404', `${FM}/inspection/enrollments/states/live.enrolled`, 404, goneFirm, 'one Enrollment state of an unknown firm'),
  // Where records gather: the top level's page asks for a key; a grain's refuses an unknown grain as its data doors do.
  row('population-page', '/inspect', 200, { contentType: 'text/html', contains: ['legalwork', '/inspection/matters'] }, 'where a key\'s Matters gather: the page (it asks for the key)'),
  row('workspace-population-page-404', `${WS}/inspect`, 404, goneWorkspace, 'the population page of an unknown workspace'),
  row('tenant-population-page-404', `${TN}/inspect`, 404, goneTenant, 'the population page of an unknown tenant'),
  row('firm-population-page-404', `${FM}/inspect`, 404, goneFirm, 'the population page of an unknown firm'),
  // The generated diagrams.
  row('diagram-missing-404', '/docs/diagrams/no-such-machine.svg', 404, { type: 'EMPTY', equals: { code: 'DIAGRAM_NOT_GENERATED' } }, 'a diagram not generated is a typed EMPTY'),
  row('script-missing-404', '/scripts/inspector.AAAAAAAA.js', 404, { type: 'EMPTY', equals: { code: 'SCRIPT_NOT_FOUND' } }, 'a page script no build of these sources names is a typed EMPTY'),
];

export function suiteDocument(): SuiteDocument {
  return {
    $type: 'Suite',
    name: SUITE_NAME,
    version: SUITE_VERSION,
    description: 'Declarative GET rows over the live doors of a legalwork service. Each row holds against any running service, empty or busy; `legalwork verify --url <base>` runs them.',
    requirements: REQUIREMENTS,
  };
}

/** The exact bytes served at /verify/suite.json. */
export const SUITE_BYTES = Buffer.from(`${JSON.stringify(suiteDocument(), null, 2)}\n`, 'utf8');
/** The pin: sha256 hex of those bytes. */
export const SUITE_PIN = sha256Hex(SUITE_BYTES);
