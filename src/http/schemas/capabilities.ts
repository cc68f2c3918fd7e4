/** Request and response schemas of the listed capability catalog. */
import { Type, type TSchema } from '@sinclair/typebox';
import { Bool, Enum, Int, Money, Num, Opt, Sha256Hex, Str, Strict, Text } from './common.ts';
import { Listed, Ok } from './responses.ts';
import { CapabilityMeta, ref } from './components.ts';


// Path parameters: shapes only; whether a record exists is the handler's 404.
// Not strict: a grain prefix (`/workspaces/:workspaceId`) adds its own.
const PatentNumber = Type.String({ pattern: '^[A-Za-z]{2}[0-9]{5,11}[A-Za-z][0-9]?$', description: 'a patent number, e.g. US10000101B2' });
export const PatentParams = Type.Object({ number: PatentNumber });
const SERIAL_PATTERN = '^[0-9]{8}$';
export const TrademarkParams = Type.Object({ serial: Type.String({ pattern: SERIAL_PATTERN, description: 'an 8-digit serial number' }) });
const StateCode = Type.String({ pattern: '^[A-Za-z]{2}$', description: 'a two-letter state code' });
export const EntityParams = Type.Object({ state: StateCode, id: Type.String({ pattern: '^[0-9]{5,12}$', description: 'the state registry file number' }) });
export const UccParams = Type.Object({ state: StateCode, filing: Type.String({ pattern: '^[0-9A-Za-z-]{4,24}$', description: 'the financing statement number' }) });
export const DocketParams = Type.Object({ district: Type.String({ pattern: '^[A-Za-z]{2,8}$' }), case: Type.String({ pattern: '^[0-9A-Za-z:.-]{1,40}$' }) });
export const SearchQuery = Strict({ q: Text(200) });

const Person = Strict({ name: Text() });
const Names = (max: number) => Type.Array(Text(), { minItems: 1, maxItems: max });
const SignerChoice = { signerId: Opt(Type.String({ minLength: 1, maxLength: 64, description: 'a Signer the caller prefers; checked fresh against the Signer registry' })) };

export const RecordBodies = {
  '/patent/draft-claims': Strict({ title: Text(300), summary: Text(5000), features: Type.Array(Text(1000), { minItems: 1, maxItems: 30 }), optionalFeatures: Opt(Type.Array(Text(1000), { maxItems: 30 })) }),
  '/patent/draft-spec': Strict({ title: Text(300), field: Text(1000), background: Opt(Text(10000)), summary: Text(10000), figures: Opt(Type.Array(Text(500), { maxItems: 50 })) }),
  '/patent/prior-art-report': Strict({ query: Text(2000), cpc: Opt(Text(30)) }),
  '/patent/oa-response': Strict({
    applicationNumber: Text(30),
    rejections: Type.Array(Strict({ basis: Enum(['101', '102', '103', '112'] as const), claims: Type.Array(Type.Integer({ minimum: 1, maximum: 500 }), { minItems: 1, maxItems: 200 }), reference: Opt(Text(100)) }), { minItems: 1, maxItems: 30 }),
  }),
  '/patent/ids': Strict({
    applicationNumber: Text(30),
    references: Type.Array(Strict({ citation: Text(300), kind: Enum(['us_patent', 'foreign_patent', 'npl'] as const), date: Opt(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })) }), { minItems: 1, maxItems: 200 }),
  }),
  '/trademark/oa-response-draft': Strict({
    serial: Type.String({ pattern: SERIAL_PATTERN }),
    refusals: Type.Array(Strict({ basis: Enum(['2(d)', '2(e)(1)', 'specimen', 'identification', 'disclaimer'] as const), note: Opt(Text(2000)) }), { minItems: 1, maxItems: 20 }),
  }),
  '/contract/review': Strict({ title: Text(300), text: Type.String({ minLength: 1, maxLength: 200_000 }) }),
  '/demand-letter/draft': Strict({ from: Person, to: Person, amountUsd: Opt(Money), facts: Text(10000), deadlineDays: Opt(Type.Integer({ minimum: 1, maximum: 90 })) }),
  '/entity/de/formation-docs': Strict({
    entityName: Text(200),
    entityType: Enum(['llc', 'corporation'] as const),
    registeredAgent: Strict({ name: Text(), address: Text(500) }),
    organizer: Person,
    purpose: Opt(Text(2000)),
  }),
  '/docket-watch': Strict({ court: Text(50), case: Text(50), notify: Opt(Text(200)) }),
  '/patent/docket-watch': Strict({ applicationNumber: Text(30), notify: Opt(Text(200)) }),
} as const;

export const ActBodies = {
  '/entity/de/form': Strict({ entityName: Text(200), entityType: Enum(['llc', 'corporation'] as const), formationDocsSha256: Sha256Hex }),
  '/patent/file-provisional': Strict({ title: Text(500), inventors: Names(50), specificationSha256: Sha256Hex }),
  '/patent/pay-maintenance': Strict({ patentNumber: PatentNumber, window: Enum(['3.5', '7.5', '11.5'] as const) }),
  '/patent/file-utility': Strict({ title: Text(500), inventors: Names(50), applicationSha256: Sha256Hex, ...SignerChoice }),
  '/patent/record-assignment': Strict({ patentNumber: PatentNumber, assignor: Text(), assignee: Text(), instrumentSha256: Sha256Hex, ...SignerChoice }),
  '/trademark/file-oa-response': Strict({ serial: Type.String({ pattern: SERIAL_PATTERN }), responseSha256: Sha256Hex, ...SignerChoice }),
  '/demand-letter/send': Strict({ to: Strict({ name: Text(), address: Opt(Text(500)) }), letterSha256: Sha256Hex, ...SignerChoice }),
  '/contract/advise': Strict({ question: Text(5000), contractSha256: Opt(Sha256Hex), ...SignerChoice }),
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
  { effect: Type.Literal('act'), gate: Type.Literal('none'), status: Type.Literal('completed'), act: Strict({ id: Str, route: Str, priceUsd: Num }), receipt: Strict({
    id: Str,
    registry: Str,
    synthetic: Type.Literal(true),
    entityName: Opt(Str),
    entityType: Opt(Str),
    title: Opt(Str),
    inventors: Opt(Type.Array(Str)),
    patentNumber: Opt(Str),
    window: Opt(Str),
  }, { description: 'the simulated registry\'s receipt, naming what it received' }), preview: Type.Literal(true), note: Str, meta: Meta },
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
