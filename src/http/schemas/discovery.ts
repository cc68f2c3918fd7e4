/** Response schemas of the discovery documents: each declares every field it answers, closed. */
import { Type } from '@sinclair/typebox';
import { Arr, Bool, Int, Num, Opt, Str, Strict } from './common.ts';
import { ConsumerPattern, Gate, MatterType, Rail, ref } from './components.ts';
import { Ok } from './responses.ts';



const Tier = Strict({ tier: Str, live: Bool, grants: Str, how: Str, note: Opt(Str) }, 'one rung of the access-tier ladder');

export const Health = Ok(
  { status: Type.Literal('live'), service: Str, version: Str, build: Str, journal: Strict({ reachable: Bool }), uptimeSeconds: Int },
  'the service is live and its journal answers',
);

export const Pricing = Ok(
  {
    $type: Type.Literal('PricingDocument'),
    currency: Type.Literal('USD'),
    model: Str,
    preview: Bool,
    note: Str,
    feeShape: Type.Literal('flat'),
    hourly: Type.Literal(false),
    percentOfOutcome: Type.Literal(false),
    reads: Strict({ priceUsd: Num, metered: Bool }),
    postedPrices: Strict({ provisionalFilingUsd: Num, utilityFilingUsd: Num }),
    meter: Strict({ releasesOn: Str, promise: Str }),
    matterTypes: Arr(Strict({ matterType: ref(MatterType), rail: ref(Rail), productFeeUsd: Num, legalFeePerActUsd: Num, perActInsuranceUsd: Num, merchantOfRecord: Str })),
    acts: Arr(Strict({ method: Str, path: Str, priceUsd: Num, gate: ref(Gate) })),
    spendCeiling: Strict({ setBy: Str, how: Str, hard: Bool, counts: Str, refusal: Str }),
  },
  'posted flat prices; the preview charges nothing',
);

export const IdealCustomerProfile = Ok(
  {
    $type: Type.Literal('IdealCustomerProfile'),
    service: Str,
    agentClasses: Arr(Strict({ consumerPattern: ref(ConsumerPattern), who: Str, how: Str })),
    accessTiers: Arr(Tier),
    reservedActs: Str,
  },
  'who the service is for, and how access rises',
);

const Route = Strict({ method: Str, path: Str });
export const CapabilityCard = Strict(
  {
    $type: Type.Literal('AgentCapabilityCard'),
    name: Str,
    description: Str,
    version: Str,
    url: Str,
    contract: Strict({ openapi: Str, openapiCompact: Type.String({ description: 'the compact form of the contract: each door once, the grain prefixes as path-level servers' }), openapiVersion: Str, version: Str, suite: Str, suiteId: Str, pin: Str }),
    auth: Strict({ scheme: Str, header: Str, issue: Str, keyless: Str }),
    tiers: Arr(Tier),
    http: Strict({ routes: Arr(Route) }),
    capabilities: Arr(Strict({ method: Str, path: Str, effect: Type.Union([Type.Literal('read'), Type.Literal('record'), Type.Literal('act')]), gate: ref(Gate), priceUsd: Opt(Num) })),
    mcp: Strict({ command: Str, args: Arr(Str), env: Type.Record(Str, Str, { description: 'environment variable → what it sets' }), transport: Str, tools: Arr(Str) }),
    probes: Arr(Strict({ id: Str, method: Str, path: Str, status: Int })),
    docs: Strict({ humans: Str, sandbox: Str, llms: Str }),
    webhooks: Strict({ register: Str, events: Arr(Str), signing: Str, delivery: Str, contract: Str }),
  },
  'the capability card: HTTP routes, the MCP command, the tier ladder, probes, webhooks',
);

export const AgentCard = Strict(
  {
    protocolVersion: Str,
    name: Str,
    description: Str,
    url: Str,
    preferredTransport: Str,
    provider: Strict({ organization: Str, url: Str }),
    version: Str,
    documentationUrl: Str,
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
    message: Str,
    skus: Arr(Type.Unknown(), { maxItems: 0 }),
    meterPromise: Strict({ promise: Str, releasesOn: Arr(Str), neverOn: Arr(Str) }),
    skuContract: Strict({ fields: Arr(Strict({ name: Str, means: Str })) }),
  },
  'no SKU is declared yet',
);
