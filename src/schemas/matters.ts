/** Request schemas of the Matter doors and orders. */
import { Type, type Static } from '@sinclair/typebox';
import { CONSUMER_PATTERNS, MATTER_TYPES, RAILS } from '../domain/matter-types.ts';
import { Cursor, EXAMPLE_SHA256, Enum, Id, Money, Opt, PageSize, Sha256Hex, Strict, Text } from './common.ts';
import { FIXTURE, PROVISIONAL_OFFER } from '../domain/fixtures.ts';
import { AssetKind, GigOutcome, ref } from './components.ts';
import { ARTIFACT_HASH, CREDENTIAL_REF } from '../../machines/matter.decide.ts';


const MatterTypeSchema = Enum(MATTER_TYPES, 'a ratified matter type');

export const CreateMatterBody = Strict({
  matterType: MatterTypeSchema,
  tenant: Opt(Text()),
  mint: Opt(Text()),
  consumerPattern: Opt(Enum(CONSUMER_PATTERNS)),
  offer: Opt(Text()),
  listFeeUsd: Opt(Money),
  client: Opt(Strict({ name: Opt(Text()) })),
  asset: Opt(Strict({ kind: Opt(ref(AssetKind, 'what the Asset is; left out, the matter type\'s own kind')), title: Opt(Text(500)) })),
  rail: Opt(Enum(RAILS)),
  clientState: Opt(Type.String({ pattern: '^[A-Z]{2}$', description: 'a two-letter region code' })),
  adverseParties: Opt(Type.Array(Type.Union([Text(), Strict({ name: Text() })]), { maxItems: 100 })),
  exposureUsd: Opt(Money),
  clientMandates: Opt(Strict({ settlementFloor: Opt(Money) })),
  tenantGuardrails: Opt(Strict({ maxFeeUsd: Opt(Money), jurisdictions: Opt(Type.Array(Text(20), { maxItems: 60 })) })),
}, {
  description: 'a Matter to open: its ratified matter type, and what the Gate and the sandbox read (a fixture Client name makes a sandbox Signer answer at once: GET /workspaces/{workspaceId}/fixtures)',
  examples: [{ matterType: 'patent_provisional', client: { name: FIXTURE.fulfillingClient }, asset: { kind: 'patent_application', title: 'Self-folding map' }, clientState: 'CA' }],
});
export type CreateMatterBody = Static<typeof CreateMatterBody>;

/** A Tenant mints against one of its declared Offers, which may fix the matter type. */
export const TenantMintBody = Strict(
  {
    ...CreateMatterBody.properties,
    offer: Text(),
    matterType: Opt(Enum(MATTER_TYPES, 'a ratified matter type; leave it out when the named Offer fixes one (it must match when both are given)')),
  },
  {
    examples: [{ offer: PROVISIONAL_OFFER, client: { name: FIXTURE.fulfillingClient }, asset: { title: 'Self-folding map' } }],
    description: 'a Matter minted on a Tenant: "offer" names one of its declared Offers, whose flat price becomes listFeeUsd and whose matter type applies when the body names none (the example names the Offer PUT /tenants/{tenantId}/offers declares in its example)',
  },
);

/** How every list pages: after the `nextAfter` of the page before, at most `limit` (100 unless asked) a page. */
const Paging = {
  after: Opt(Cursor('the `nextAfter` of the page before')),
  limit: Opt(PageSize(500, 100)),
};

export const ListMattersQuery = Strict({
  filter: Opt(Type.String({ minLength: 1, maxLength: 200, description: 'only the Matters minted against this Offer', examples: [PROVISIONAL_OFFER] })),
  tag: Opt(Type.String({ minLength: 1, maxLength: 200, description: 'only the Matters of this matter type', examples: ['patent_provisional'] })),
  scope: Opt(Type.String({ maxLength: 50, description: 'a reserved listing scope: none is served in this preview, so any value answers 403 BLOCKED SCOPE_RESERVED; leave it out to list', examples: ['admin'] })),
  ...Paging,
});

export const ListAssetsQuery = Strict(Paging);


export const AdvanceBody = Strict({
  merits: Opt(Type.Object({ settlementUsd: Opt(Money) }, { additionalProperties: true })),
  note: Opt(Text(2000)),
}, { description: 'optional: an advance needs no body', examples: [{ note: 'the intake facts are complete' }] });

export const ConsentBody = Strict({ actor: Type.String({ minLength: 1, maxLength: 200, description: 'who consents: must be `client` (only the Client consents)', examples: ['client'] }), scope: Text(500) }, { examples: [{ actor: 'client', scope: 'this Matter' }] });

const AttestationSchema = Strict({
  signedBy: Text(),
  credentialRef: Opt(Type.String({ maxLength: 200, pattern: CREDENTIAL_REF.source, description: 'the Signer\'s credential, `<registry>:<number>` (e.g. uspto-reg:70001)' })),
  artifactHash: Opt(Type.String({ pattern: ARTIFACT_HASH.source, description: 'the attested artifact, `sha256:` and 64 lowercase hex digits' })),
}, 'the Signer\'s Attestation: required when the outcome is attested (the Gate refuses an attested result without one)');

export const GigResultBody = Strict({
  gigId: Id,
  outcome: ref(GigOutcome),
  attestation: Opt(AttestationSchema),
  memo: Opt(Type.String({ maxLength: 5000 })),
  receipt: Opt(Text()),
}, {
  description: 'a Signer\'s answer to the pending Gig: `gigId` is the Matter\'s `pendingGigId` (a Gig it is not waiting on answers 409 NO_PENDING_GIG or GIG_MISMATCH); `attested` needs the Attestation',
  examples: [{ gigId: 'gig_1x8c2v6b0n4m9q3w7e5r1t5y9', outcome: 'attested', attestation: { signedBy: FIXTURE.eligibleSigner, credentialRef: 'uspto-reg:70001', artifactHash: `sha256:${EXAMPLE_SHA256}` } }],
});
export type GigResultBody = Static<typeof GigResultBody>;

/** The Standard Webhooks headers of the supply network's signed callback (the top level's gig-result). */
export const SignedCallbackHeaders = Type.Object({
  'webhook-id': Type.String({ minLength: 1, maxLength: 255, description: 'the message id; a callback whose id was already accepted is answered as the first time and writes nothing', examples: ['msg_2LJcnS0wQy7kPx1sHdF3'] }),
  'webhook-timestamp': Type.String({ pattern: '^[0-9]{1,12}$', description: 'unix seconds; more than 5 minutes off is refused (the example shows the form; send the time of sending)', examples: ['1767225600'] }),
  'webhook-signature': Type.String({ description: 'v1,<base64 HMAC-SHA256 of "id.timestamp.body"> with the supply network secret (whsec_…), over the exact body bytes; several space-separated signatures are allowed (the example shows the form: a signature that does not match answers 401 SIGNATURE_INVALID)', examples: ['v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4='] }),
});

export const ClientDirectionBody = Strict({
  instruction: Type.String({ maxLength: 5000 }),
  authorizes: Opt(Type.Object({}, { additionalProperties: true })),
}, { description: 'the Client\'s instruction, after a Signer declined (on a Matter not waiting on the Client: 409)', examples: [{ instruction: 'Post the review to another Signer.' }] });

export const TerminalBody = Strict({
  outcome: Enum(['withdrawn', 'lapsed', 'referred_out'] as const),
  byClient: Opt(Type.Boolean()),
  confirmedUnresponsiveTwice: Opt(Type.Boolean()),
  referredTo: Opt(Type.String({ maxLength: 500 })),
  note: Opt(Text(2000)),
}, { description: 'the terminal: `withdrawn` needs `byClient: true` (the Client withdraws), `lapsed` needs `confirmedUnresponsiveTwice: true`, `referred_out` needs `referredTo`', examples: [{ outcome: 'withdrawn', byClient: true }] });

export const DocumentBody = Strict({ name: Text(500), kind: Text(100), sha256: Sha256Hex }, { description: 'a document\'s metadata and the sha256 of its bytes (the bytes are never sent)', examples: [{ name: 'specification.pdf', kind: 'specification', sha256: EXAMPLE_SHA256 }] });

export const OrderBody = Strict({
  mint: Text(),
  offer: Text(),
  title: Text(500),
  inventor: Text(),
  listFeeUsd: Money,
  clientState: Opt(Type.String({ pattern: '^[A-Z]{2}$' })),
}, {
  description: `a provisional order: \`offer\` is ${PROVISIONAL_OFFER} (in a Tenant, an Offer it declared that mints patent_provisional or names no type)`,
  examples: [{ mint: 'acme-agent', offer: PROVISIONAL_OFFER, title: 'Self-folding map', inventor: 'Ada Inventor', listFeeUsd: 199, clientState: 'CA' }],
});
export type OrderBody = Static<typeof OrderBody>;
