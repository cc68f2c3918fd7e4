/** Response schemas of the discovery documents: each declares every field it answers, closed. */
import { Type } from '@sinclair/typebox';
import { SUITE_ID, SUITE_PIN } from '../../verify/suite.ts';
import { CONTRACT_VERSION, OPENAPI_VERSION } from '../openapi.ts';
import { Arr, Bool, Int, Num, Opt, Str, StrEx, Strict } from '../../schemas/common.ts';
import { ConsumerPattern, Gate, MatterType, Rail, ref } from '../../schemas/components.ts';
import { Ok } from './responses.ts';

/**
 * The examples below are the answers' own values (discovery.ts builds them),
 * the absolute links as a service at this base would write them.
 */
const BASE = 'http://127.0.0.1:3000';
const Service = StrEx('legalwork');
const Version = StrEx(CONTRACT_VERSION);
const Link = (path: string, description?: string) => StrEx(`${BASE}${path}`, description ? { description } : {});

const Tier = Strict({ tier: Str, live: Bool, grants: Str, how: Str, note: Opt(Str) }, 'one rung of the access-tier ladder');

export const Health = Ok(
  { status: Type.Literal('live'), service: Service, version: Version, build: StrEx('preview'), journal: Strict({ reachable: Bool }), uptimeSeconds: Int },
  'the service is live and its journal answers',
);

export const Pricing = Ok(
  {
    $type: Type.Literal('PricingDocument'),
    currency: Type.Literal('USD'),
    model: StrEx('free'),
    preview: Bool,
    note: StrEx('This preview charges nothing: the pricing model is free, and the figures are the posted flat targets.'),
    feeShape: Type.Literal('flat'),
    hourly: Type.Literal(false),
    percentOfOutcome: Type.Literal(false),
    reads: Strict({ priceUsd: Num, metered: Bool }),
    postedPrices: Strict({ provisionalFilingUsd: Num, utilityFilingUsd: Num }),
    meter: Strict({ releasesOn: StrEx('fulfilled'), promise: StrEx('no filing, no charge: the Meter releases only when a Matter is fulfilled (receipt on file)') }),
    matterTypes: Arr(Strict({ matterType: ref(MatterType), rail: ref(Rail), productFeeUsd: Num, legalFeePerActUsd: Num, perActInsuranceUsd: Num, merchantOfRecord: Str })),
    acts: Arr(Strict({ method: Str, path: Str, priceUsd: Num, gate: ref(Gate) })),
    spendCeiling: Strict({ setBy: StrEx('the caller'), how: StrEx('POST /keys with spendCeilingUsd'), hard: Bool, counts: StrEx('the posted price of each paid act taken with the key'), refusal: StrEx('403 BLOCKED naming the ceiling; nothing is written') }),
  },
  'posted flat prices; the preview charges nothing',
);

export const IdealCustomerProfile = Ok(
  {
    $type: Type.Literal('IdealCustomerProfile'),
    service: Service,
    agentClasses: Arr(Strict({ consumerPattern: ref(ConsumerPattern), who: Str, how: Str })),
    accessTiers: Arr(Tier),
    reservedActs: StrEx('a filing signature, a demand letter on attorney letterhead, legal advice: never performed by the agent or the service; posted as Gigs to licensed Signers'),
  },
  'who the service is for, and how access rises',
);

const Route = Strict({ method: Str, path: Str });
export const CapabilityCard = Strict(
  {
    $type: Type.Literal('AgentCapabilityCard'),
    name: Service,
    description: StrEx('An HTTP service through which software agents open, advance and settle legal work.'),
    version: Version,
    url: StrEx(BASE, { description: 'the base address the card was read at' }),
    contract: Strict({ openapi: Link('/openapi.json'), openapiCompact: Link('/openapi.json?form=compact', 'the compact form of the contract: each door once, the grain prefixes as path-level servers'), openapiVersion: StrEx(OPENAPI_VERSION), version: Version, suite: Link('/verify/suite.json'), suiteId: StrEx(SUITE_ID), pin: StrEx(SUITE_PIN) }),
    auth: Strict({ scheme: StrEx('bearer'), header: StrEx('Authorization: Bearer <key>'), issue: StrEx('POST /keys (form field email; optional building, spendCeilingUsd)'), keyless: StrEx('every read by id, and everything inside a sandbox grain') }),
    tiers: Arr(Tier),
    http: Strict({ routes: Arr(Route) }),
    capabilities: Arr(Strict({ method: Str, path: Str, effect: Type.Union([Type.Literal('read'), Type.Literal('record'), Type.Literal('act')]), gate: ref(Gate), priceUsd: Opt(Num) })),
    mcp: Strict({ command: StrEx('npx'), args: Arr(Str), env: Type.Record(Str, Str, { description: 'environment variable → what it sets' }), transport: StrEx('stdio'), tools: Arr(Str) }),
    probes: Arr(Strict({ id: Str, method: Str, path: Str, status: Int })),
    docs: Strict({ humans: Link('/docs'), sandbox: Link('/sandbox'), llms: Link('/llms.txt') }),
    webhooks: Strict({ register: StrEx('POST /webhooks {url, events[]}: the answer shows the signing secret once'), events: Arr(Str), signing: StrEx('Standard Webhooks: headers webhook-id, webhook-timestamp, webhook-signature'), delivery: StrEx('at least once, in journal order per endpoint'), contract: Link('/openapi.json#/webhooks') }),
  },
  'the capability card: HTTP routes, the MCP command, the tier ladder, probes, webhooks',
);

export const AgentCard = Strict(
  {
    protocolVersion: StrEx('0.3.0', { description: 'the A2A protocol version of this card\'s shape' }),
    name: Service,
    description: StrEx('An HTTP service through which software agents open, advance and settle legal work. The interface is the HTTP+JSON contract at /openapi.json.'),
    url: StrEx(BASE),
    preferredTransport: StrEx('HTTP+JSON'),
    provider: Strict({ organization: Service, url: StrEx(BASE) }),
    version: Version,
    documentationUrl: Link('/docs'),
    capabilities: Strict({ streaming: Bool, pushNotifications: Bool, stateTransitionHistory: Bool }),
    securitySchemes: Type.Record(Str, Strict({ type: Str, scheme: Str, description: Str })),
    security: Arr(Type.Record(Str, Arr(Str))),
    defaultInputModes: Arr(Str),
    defaultOutputModes: Arr(Str),
    skills: Arr(Strict({ id: Str, name: Str, description: Str, tags: Arr(Str), examples: Opt(Arr(Str)) })),
  },
  'an A2A AgentCard',
);

export const SkuCatalog = Strict(
  {
    type: Type.Literal('EMPTY'),
    results: Arr(Type.Unknown(), { maxItems: 0 }),
    message: StrEx('no SKU is declared in this preview: nothing meters.'),
    skus: Arr(Type.Unknown(), { maxItems: 0 }),
    meterPromise: Strict({ promise: StrEx('no record, no charge'), releasesOn: Arr(Str), neverOn: Arr(Str) }),
    skuContract: Strict({ fields: Arr(Strict({ name: Str, means: Str })) }),
  },
  'no SKU is declared yet',
);
