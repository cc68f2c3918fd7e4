/** Request schemas of the Matter doors and orders. */
import { Type, type Static } from '@sinclair/typebox';
import { CONSUMER_PATTERNS, MATTER_TYPES, RAILS } from '../../domain/matter-types.ts';
import { Cursor, Enum, Id, Money, Opt, Sha256Hex, Strict, Text } from './common.ts';
import { AssetKind, GigOutcome, ref } from './components.ts';
import { ARTIFACT_HASH, CREDENTIAL_REF } from '../../../machines/matter.decide.ts';


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
});
export type CreateMatterBody = Static<typeof CreateMatterBody>;

/** A Tenant mints against one of its declared Offers, which may fix the matter type. */
export const TenantMintBody = Strict(
  {
    ...CreateMatterBody.properties,
    offer: Text(),
    matterType: Opt(Enum(MATTER_TYPES, 'a ratified matter type; leave it out when the named Offer fixes one (it must match when both are given)')),
  },
  'a Matter minted on a Tenant: "offer" names one of its declared Offers, whose flat price becomes listFeeUsd and whose matter type applies when the body names none',
);

/** How every list pages: after the `nextAfter` of the page before, at most `limit` (100 unless asked) a page. */
const Paging = {
  after: Opt(Cursor('the `nextAfter` of the page before')),
  limit: Opt(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
};

export const ListMattersQuery = Strict({
  filter: Opt(Text()),
  tag: Opt(Text()),
  scope: Opt(Type.String({ maxLength: 50 })),
  ...Paging,
});

export const ListAssetsQuery = Strict(Paging);

/** A Matter write may be conditional: `If-Match: "<version>"` (the ETag of the Matter as read), or `*` for any. */
export const IfMatchHeaders = Type.Object({
  'if-match': Opt(Type.String({ pattern: '^("[0-9]{1,15}"|\\*)$', description: 'the Matter version the write was decided against, as its ETag gives it ("12"); a Matter that has moved on answers 412 VERSION_MISMATCH and nothing is written' })),
});

export const AdvanceBody = Strict({
  merits: Opt(Type.Object({ settlementUsd: Opt(Money) }, { additionalProperties: true })),
  note: Opt(Text(2000)),
});

export const ConsentBody = Strict({ actor: Text(), scope: Text(500) });

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
});

/** The Standard Webhooks headers of the supply network's signed callback (the top level's gig-result). */
export const SignedCallbackHeaders = Type.Object({
  'webhook-id': Type.String({ minLength: 1, maxLength: 255, description: 'the message id; a callback whose id was already accepted is answered as the first time and writes nothing' }),
  'webhook-timestamp': Type.String({ pattern: '^[0-9]{1,12}$', description: 'unix seconds; more than 5 minutes off is refused' }),
  'webhook-signature': Type.String({ description: 'v1,<base64 HMAC-SHA256 of "id.timestamp.body"> with the supply network secret (whsec_…), over the exact body bytes; several space-separated signatures are allowed' }),
});

export const ClientDirectionBody = Strict({
  instruction: Type.String({ maxLength: 5000 }),
  authorizes: Opt(Type.Object({}, { additionalProperties: true })),
});

export const TerminalBody = Strict({
  outcome: Enum(['withdrawn', 'lapsed', 'referred_out'] as const),
  byClient: Opt(Type.Boolean()),
  confirmedUnresponsiveTwice: Opt(Type.Boolean()),
  referredTo: Opt(Type.String({ maxLength: 500 })),
  note: Opt(Text(2000)),
});

export const DocumentBody = Strict({ name: Text(500), kind: Text(100), sha256: Sha256Hex });

export const OrderBody = Strict({
  mint: Text(),
  offer: Text(),
  title: Text(500),
  inventor: Text(),
  listFeeUsd: Money,
  clientState: Opt(Type.String({ pattern: '^[A-Z]{2}$' })),
});
export type OrderBody = Static<typeof OrderBody>;
