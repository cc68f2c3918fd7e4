/** Request and response schemas of the listed capability catalog. */
import { Type, type TSchema } from '@sinclair/typebox';
import { formationDocs, NAME_SUFFIXES, draftSpec, toArtifact } from '../../domain/capabilities/drafts.ts';
import { SHA256_HEX_PATTERN, sha256Hex } from '../../domain/hash.ts';
import { IDENTIFIERS, type IdentifierKind } from '../../domain/identifiers.ts';
import { Bool, Enum, Int, Money, Num, Opt, Sha256Hex, Str, Strict, Text } from '../../schemas/common.ts';
import { Listed, Ok } from './responses.ts';
import { ActReceipt, CapabilityMeta, ref } from '../../schemas/components.ts';

/**
 * `schema` carrying `examples: [example]`, and each of its properties (and
 * an array's items, and theirs) the example's own value: one example body
 * documents every field, so the two cannot disagree. An optional property
 * the body leaves out takes its example from `optional`; a property with no
 * example at all throws as the module loads.
 */
export function exampled<T extends TSchema>(schema: T, example: unknown, optional: Record<string, unknown> = {}): T {
  const out: Record<string, unknown> = { ...schema, examples: [example] };
  if (schema.type === 'object' && schema.properties) {
    out.properties = Object.fromEntries(Object.entries(schema.properties as Record<string, TSchema>).map(([name, member]) => {
      const value = (example as Record<string, unknown>)[name] ?? optional[name];
      if (value === undefined) throw new Error(`no example for the property "${name}"`);
      return [name, exampled(member, value)];
    }));
  } else if (schema.type === 'array' && schema.items) {
    out.items = exampled(schema.items as TSchema, (example as unknown[])[0]);
  }
  return out as T;
}

/**
 * A field that names a registry identifier: its schema takes every form the
 * reader (`domain/identifiers.ts`) takes, says which in its description, and
 * shows them; the route reads the canonical form and echoes it.
 */
// Several examples become a parameter's named `examples` map, keyed by each value: a key all digits would sort first, so the canonical example leads and no other is all digits.
const Identifier = (kind: IdentifierKind, examples: string[]) => Type.String({ pattern: IDENTIFIERS[kind].pattern, description: IDENTIFIERS[kind].description, examples });

/** The first example of each parameter: records of the synthetic data set (the reads' example answers are their answers for these). */
export const PARAM_EXAMPLES = { number: 'US10000202B2', serial: '97000202', state: 'DE', id: '7000202', filing: '20230001010', q: 'acoustic sensor' } as const;

const PatentNumber = Identifier('patent', [PARAM_EXAMPLES.number, 'US10000202', 'US 10,000,202 B2', 'us10000202b2']);
const Serial = Identifier('trademark', [PARAM_EXAMPLES.serial, '97-000202', '97 000 202']);
const StateCode = Identifier('state', [PARAM_EXAMPLES.state, 'de', 'Delaware']);

// Path parameters: shapes only; whether a record exists is the handler's 404.
// Not strict: a grain prefix (`/workspaces/:workspaceId`) adds its own.
export const PatentParams = Type.Object({ number: PatentNumber });
export const TrademarkParams = Type.Object({ serial: Serial });
export const EntityParams = Type.Object({ state: StateCode, id: Type.String({ pattern: '^[0-9]{5,12}$', description: 'the state registry file number (5 to 12 digits)', examples: [PARAM_EXAMPLES.id] }) });
export const UccParams = Type.Object({ state: StateCode, filing: Type.String({ pattern: '^[0-9A-Za-z-]{4,24}$', description: 'the financing statement number', examples: [PARAM_EXAMPLES.filing] }) });
export const DocketParams = Type.Object({
  district: Type.String({ pattern: '^[A-Za-z]{2,8}$', description: 'the federal district court, by its short name', examples: ['nysd'] }),
  case: Type.String({ pattern: '^[0-9A-Za-z:.-]{1,40}$', description: 'the case number', examples: ['1:23-cv-00001'] }),
});
export const SearchQuery = Strict({ q: Type.String({ minLength: 1, maxLength: 200, description: 'words to match, every one of them, in the title, abstract, assignee or CPC', examples: [PARAM_EXAMPLES.q] }) });

const Person = Strict({ name: Text() });
const Names = (max: number) => Type.Array(Text(), { minItems: 1, maxItems: max });
const SignerChoice = { signerId: Opt(Type.String({ minLength: 1, maxLength: 64, description: 'a Signer the caller prefers; checked fresh against the Signer registry (inside a sandbox grain, the fixture Signer sg_fixture_eligible is eligible; at the top level a Signer unknown to the registry is 403 BLOCKED). Leave it out to let the supply network route to one' })) };
/** What a reserved act's optional `signerId` shows: the sandbox's eligible fixture Signer (the bodies' own examples leave it out). */
const SIGNER_EXAMPLE = { signerId: 'sg_fixture_eligible' };

const LLC = NAME_SUFFIXES.llc.map((w) => `"${w}"`).join(', ');
const CORPORATION = NAME_SUFFIXES.corporation.map((w) => `"${w}"`).join(', ');
/** The naming rule, which a pattern cannot say (it depends on `entityType`): in the description, beside a valid example. */
const EntityName = Type.String({ minLength: 1, maxLength: 200, description: `the entity's name, ending with the suffix its entityType requires (any case): an LLC's with one of ${LLC}; a corporation's with one of ${CORPORATION}. Otherwise 422 ENTITY_NAME_SUFFIX` });
const EntityType = Enum(['llc', 'corporation'] as const, 'llc: a limited liability company (a Certificate of Formation); corporation: a Certificate of Incorporation');

/** The example drafts the act examples hash: an act names the sha256 of the artifact its record door answered. */
const FORMATION_EXAMPLE = { entityName: 'Cartofold Maps LLC', entityType: 'llc', registeredAgent: { name: 'Harbor Agent Services (synthetic)', address: '1 Main St, Dover, DE 19901' }, organizer: { name: 'Ada Quill' }, purpose: 'making and selling folding maps' } as const;
const SPEC_EXAMPLE = { title: 'Acoustic leak detector', field: 'Irrigation monitoring', background: 'Leaks in buried irrigation pipe waste water and are found late', summary: 'A clamp-on acoustic sensor that locates a leak in buried pipe', figures: ['a side view of the clamp'] };
const FORMATION_SHA = toArtifact(formationDocs({ ...FORMATION_EXAMPLE })).sha256;
const SPEC_SHA = toArtifact(draftSpec(SPEC_EXAMPLE)).sha256;
const DOCUMENT_SHA = sha256Hex('a signed document (synthetic example)');
const Sha = (description: string) => Type.String({ pattern: SHA256_HEX_PATTERN, description: `${description}: 64 lowercase hex characters` });

export const RecordBodies = {
  '/patent/draft-claims': exampled(Strict({ title: Text(300), summary: Text(5000), features: Type.Array(Text(1000), { minItems: 1, maxItems: 30 }), optionalFeatures: Opt(Type.Array(Text(1000), { maxItems: 30 })) }),
    { title: 'Self-folding map', summary: 'A map that refolds itself along its original creases', features: ['a sheet of paper', 'pre-stressed creases that refold the sheet'], optionalFeatures: ['a printed legend'] }),
  '/patent/draft-spec': exampled(Strict({ title: Text(300), field: Text(1000), background: Opt(Text(10000)), summary: Text(10000), figures: Opt(Type.Array(Text(500), { maxItems: 50 })) }), SPEC_EXAMPLE),
  '/patent/prior-art-report': exampled(Strict({ query: Text(2000), cpc: Opt(Type.String({ minLength: 1, maxLength: 30, description: 'narrows to references whose CPC class starts with it' })) }), { query: 'acoustic leak sensor', cpc: 'G01M' }),
  '/patent/oa-response': exampled(Strict({
    applicationNumber: Type.String({ minLength: 1, maxLength: 30, description: 'the application the office action is in, as the office writes it' }),
    rejections: Type.Array(Strict({ basis: Enum(['101', '102', '103', '112'] as const, 'the statutory section of the rejection'), claims: Type.Array(Type.Integer({ minimum: 1, maximum: 500 }), { minItems: 1, maxItems: 200 }), reference: Opt(Text(100)) }), { minItems: 1, maxItems: 30 }),
  }), { applicationNumber: '17/000,001', rejections: [{ basis: '103', claims: [1, 2], reference: 'US10000101B2' }] }),
  '/patent/ids': exampled(Strict({
    applicationNumber: Type.String({ minLength: 1, maxLength: 30, description: 'the application the statement is filed in' }),
    references: Type.Array(Strict({ citation: Type.String({ minLength: 1, maxLength: 300, description: 'the reference as cited; a us_patent citation in any form a patent number reads in is matched to the data set' }), kind: Enum(['us_patent', 'foreign_patent', 'npl'] as const), date: Opt(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'the reference\'s date, YYYY-MM-DD' })) }), { minItems: 1, maxItems: 200 }),
  }), { applicationNumber: '17/000,001', references: [{ citation: 'US10000101B2', kind: 'us_patent', date: '2018-10-02' }] }),
  '/trademark/oa-response-draft': exampled(Strict({
    serial: Serial,
    refusals: Type.Array(Strict({ basis: Enum(['2(d)', '2(e)(1)', 'specimen', 'identification', 'disclaimer'] as const, 'the ground of the refusal'), note: Opt(Text(2000)) }), { minItems: 1, maxItems: 20 }),
  }), { serial: '97000202', refusals: [{ basis: '2(d)', note: 'the goods move in different channels of trade' }] }),
  '/contract/review': exampled(Strict({ title: Text(300), text: Type.String({ minLength: 1, maxLength: 200_000, description: 'the contract\'s full text' }) }),
    { title: 'Supply agreement', text: 'This agreement is made between Cartofold Synthetic Inc. and Greenrow Devices LLC. Term: one year. Either party may terminate on notice. Payment is due within 30 days of invoice. This agreement is governed by the laws of Delaware.' }),
  '/demand-letter/draft': exampled(Strict({ from: Person, to: Person, amountUsd: Opt(Money), facts: Text(10000), deadlineDays: Opt(Type.Integer({ minimum: 1, maximum: 90 })) }),
    { from: { name: 'Ada Quill' }, to: { name: 'Ben Marsh' }, amountUsd: 1200, facts: 'Ben Marsh has not paid invoice 17, due 2024-11-01', deadlineDays: 14 }),
  '/entity/de/formation-docs': exampled(Strict({
    entityName: EntityName,
    entityType: EntityType,
    registeredAgent: Strict({ name: Text(), address: Type.String({ minLength: 1, maxLength: 500, description: 'the registered office, in Delaware' }) }),
    organizer: Person,
    purpose: Opt(Text(2000)),
  }), FORMATION_EXAMPLE),
  '/docket-watch': exampled(Strict({ court: Text(50), case: Text(50), notify: Opt(Text(200)) }), { court: 'nysd', case: '1:23-cv-00001', notify: 'https://agent.example.com/legalwork/dockets' }),
  '/patent/docket-watch': exampled(Strict({ applicationNumber: Text(30), notify: Opt(Text(200)) }), { applicationNumber: '17/000,001', notify: 'https://agent.example.com/legalwork/dockets' }),
} as const;

export const ActBodies = {
  '/entity/de/form': exampled(Strict({ entityName: EntityName, entityType: EntityType, formationDocsSha256: Sha('the sha256 of the formation documents POST /entity/de/formation-docs drafted (`artifact.sha256`)') }),
    { entityName: FORMATION_EXAMPLE.entityName, entityType: 'llc', formationDocsSha256: FORMATION_SHA }),
  '/patent/file-provisional': exampled(Strict({ title: Text(500), inventors: Names(50), specificationSha256: Sha('the sha256 of the specification filed (POST /patent/draft-spec answers one as `artifact.sha256`)') }),
    { title: SPEC_EXAMPLE.title, inventors: ['Chen Ito', 'Dana Ruiz'], specificationSha256: SPEC_SHA }),
  '/patent/pay-maintenance': exampled(Strict({ patentNumber: PatentNumber, window: Enum(['3.5', '7.5', '11.5'] as const, 'the maintenance window, by its years after grant; it must be open (GET /patent/{number}/maintenance)') }),
    { patentNumber: 'US10000404B2', window: '3.5' }),
  '/patent/file-utility': exampled(Strict({ title: Text(500), inventors: Names(50), applicationSha256: Sha('the sha256 of the application as filed'), ...SignerChoice }),
    { title: SPEC_EXAMPLE.title, inventors: ['Chen Ito', 'Dana Ruiz'], applicationSha256: SPEC_SHA }, SIGNER_EXAMPLE),
  '/patent/record-assignment': exampled(Strict({ patentNumber: PatentNumber, assignor: Text(), assignee: Text(), instrumentSha256: Sha('the sha256 of the executed assignment'), ...SignerChoice }),
    { patentNumber: 'US10000202B2', assignor: 'Cartofold Synthetic Inc.', assignee: 'Northwind Lending Trust (synthetic)', instrumentSha256: DOCUMENT_SHA }, SIGNER_EXAMPLE),
  '/trademark/file-oa-response': exampled(Strict({ serial: Serial, responseSha256: Sha('the sha256 of the response to file'), ...SignerChoice }), { serial: '97000202', responseSha256: DOCUMENT_SHA }, SIGNER_EXAMPLE),
  '/demand-letter/send': exampled(Strict({ to: Strict({ name: Text(), address: Opt(Text(500)) }), letterSha256: Sha('the sha256 of the letter to send'), ...SignerChoice }),
    { to: { name: 'Ben Marsh', address: '2 Harbor Rd, Dover, DE 19901' }, letterSha256: DOCUMENT_SHA }, SIGNER_EXAMPLE),
  '/contract/advise': exampled(Strict({ question: Text(5000), contractSha256: Opt(Sha('the sha256 of the contract the question is about')), ...SignerChoice }),
    { question: 'Is the limitation of liability clause enforceable in Delaware?', contractSha256: DOCUMENT_SHA }, SIGNER_EXAMPLE),
} as const;

// Responses.
const Meta = ref(CapabilityMeta);

const read = (props: Record<string, TSchema>, description: string) => Ok({ ...props, meta: Meta }, description);

const PatentSummary = Strict({ number: Str, title: Str, assignee: Str, grantedOn: Str });
export const ReadResponses = {
  search: Listed(Strict({ ...PatentSummary.properties, matched: Type.Array(Str) }), { q: Str, meta: Meta }, 'patents matching every word of q, or a typed EMPTY'),
  patent: read({ patent: Strict({ number: Str, title: Str, abstract: Str, assignee: Str, inventors: Type.Array(Str), filedOn: Str, grantedOn: Str, cpc: Type.Array(Str) }) }, 'the bibliographic record'),
  family: read({ number: Str, family: Strict({ familyId: Str, members: Type.Array(Strict({ number: Str, relation: Str, title: Str })) }) }, 'the patent family'),
  status: read({ number: Str, status: Strict({ current: Str, history: Type.Array(Strict({ on: Str, status: Str })) }) }, 'legal status and its history'),
  assignment: Listed(Strict({ recordedOn: Str, reelFrame: Str, assignor: Str, assignee: Str, conveyance: Str }), { number: Str, meta: Meta }, 'recorded assignments, or a typed EMPTY'),
  citations: read({ number: Str, cites: Type.Array(PatentSummary), citedBy: Type.Array(PatentSummary) }, 'references cited and citing, within the data set'),
  ptab: Listed(Strict({ proceeding: Str, type: Str, filedOn: Str, petitioner: Str, status: Str }), { number: Str, meta: Meta }, 'trial proceedings, or a typed EMPTY'),
  maintenance: read({ number: Str, windows: Type.Array(Strict({ window: Str, opensOn: Str, dueOn: Str, surchargeUntil: Str, state: Str })) }, 'maintenance-fee windows'),
  trademark: read({ trademark: Strict({ serial: Str, mark: Str, owner: Str, classes: Type.Array(Int), status: Str, statusDate: Str, history: Type.Array(Strict({ on: Str, event: Str })) }) }, 'a trademark application\'s status'),
  entity: read({ entity: Strict({ state: Str, id: Str, name: Str, kind: Str, formedOn: Str, standing: Str, registeredAgent: Str, lastAnnualFiling: Type.Union([Str, Type.Null()]) }) }, 'an entity\'s standing'),
  ucc: read({ filing: Strict({ state: Str, number: Str, filedOn: Str, lapsesOn: Str, debtor: Str, securedParty: Str, collateral: Str, status: Str }) }, 'a UCC financing statement'),
};

const ArtifactSchema = Strict({ id: Str, kind: Str, title: Str, mediaType: Type.Literal('text/markdown'), content: Str, sha256: Sha256Hex, bytes: Int });

export const RecordResponse = Ok(
  { effect: Type.Literal('record'), gate: Type.Literal('none'), artifact: ArtifactSchema, advice: Type.Literal(false), notice: Str, recordedSeq: Int,
    meta: Meta,
    extra: Opt(Strict({
      references: Opt(Type.Array(Strict({ number: Str, title: Str, shared: Type.Array(Str) }), { description: 'a prior-art report\'s references, with the words each shares with the query' })),
      clauses: Opt(Type.Array(Strict({ clause: Str, present: Bool }), { description: 'a contract review\'s clause checklist: mentioned or not, never assessed' })),
    }, { description: 'what a draft yields beside its artifact' })),
  },
  'a draft artifact with its sha256; the journal holds only its metadata',
);

export const ActResponse = Ok(
  { effect: Type.Literal('act'), gate: Type.Literal('none'), status: Type.Literal('completed'), act: Strict({ id: Str, route: Str, priceUsd: Num }), receipt: ref(ActReceipt), preview: Type.Literal(true), note: Str, meta: Meta },
  'the act, completed on the simulated registry (the preview files nothing live)',
);

export const PendingResponse = Ok(
  {
    status: Type.Literal('waiting_on_signer'),
    effect: Type.Literal('act'),
    gate: Strict({ requiresSigner: Str }),
    act: Strict({ id: Str, route: Str, priceUsd: Num }),
    gigId: Str,
    pending: Type.Optional(Type.String({ description: 'the Gig is journaled but the supply network has not taken its post yet: it is retried' })),
    signer: Strict({ routed: Bool, credential: Str, verification: Strict({ mode: Str, liveness: Str }) }),
    eta: Type.Literal('PT24H'),
    then: Strict({ attestation: Str, receipt: Str, webhook: Str }),
    meta: Meta,
  },
  'the reserved act, posted to the supply network: a licensed Signer performs it, never the service',
);
