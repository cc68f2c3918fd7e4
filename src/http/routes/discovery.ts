/**
 * Discovery: liveness, the Pricing Document, the agent classes and tier
 * ladder, the capability card (ours and the A2A shape), llms.txt and the SKU
 * catalog. Each is derived from the data it describes (posted prices, the
 * capability catalog, the tier ladder, the registered routes, the verify
 * suite), never hand-copied.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TIER_LADDER } from '../../domain/access.ts';
import { CAPABILITIES, gateView, openapiPath } from '../../domain/capabilities/catalog.ts';
import { CONSUMER_PATTERNS, MATTER_TYPES, RAIL_OF } from '../../domain/matter-types.ts';
import { PER_ACT_INSURANCE_USD, POSTED_PRICES } from '../../domain/pricing.ts';
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhook-events.ts';
import { SPEC_TOOLS } from '../../mcp/tool-names.ts';
import { SUITE_ID, SUITE_PIN, suiteDocument } from '../../verify/suite.ts';
import { empty, ok } from '../envelopes.ts';
import { NO_GRAIN } from '../../engine/grains.ts';
import { CONTRACT_VERSION, OPENAPI_VERSION } from '../openapi.ts';
import { AgentCard, CapabilityCard, Health, IdealCustomerProfile, Pricing, SkuCatalog } from '../schemas/discovery.ts';
import { Media } from '../schemas/responses.ts';
import type { Services } from '../services.ts';
import { LIVENESS_EXEMPT } from '../rate-limit.ts';

const SUMMARY = 'An HTTP service through which software agents open, advance and settle legal work: a Matter moves through six stages (intake, prepare, examine, review, sign, file); acts reserved to licensed humans are posted as Gigs to a supply network, where an independent Signer attests, sends back or declines. Every answer is typed OK, EMPTY or BLOCKED; a 2xx means the journal committed. This build is a preview: synthetic supply network, no live filings, nothing is legal advice.';

const MCP = { command: 'npx', args: ['-y', 'legalwork', 'mcp', 'serve'], env: { LEGALWORK_URL: 'the service base address (default http://127.0.0.1:3000)', LEGALWORK_KEY: 'an API key: the tools act as it (top-level writes, and the lists of its own records)' }, transport: 'stdio', tools: [...SPEC_TOOLS] };

const AGENT_CLASSES = [
  { consumerPattern: 'B2A', who: 'the agent is the customer', how: 'the agent opens and advances its own Matters with its key' },
  { consumerPattern: 'B2H2A', who: 'a human user, served by an agent, with a licensed human at the reserved act', how: 'the agent drives the open stages; reserved acts go to a Signer as Gigs' },
  { consumerPattern: 'B2A2D', who: "a platform's agents serving downstream clients", how: "each client's Matter carries its own journaled consent (POST /matters/{id}/consent with actor client) before it can pass intake" },
] as const;

/** The base address the caller reached us at, for absolute links in cards. */
const baseOf = (request: FastifyRequest) => `${request.protocol}://${request.headers.host ?? 'localhost'}`;

export async function discoveryRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const started = Date.now();

  /** Every route the app serves, as OpenAPI paths (collected at ready, after every plugin registered). */
  const routes = () => {
    return Object.entries(app.swagger().paths ?? {}).flatMap(([path, ops]) => Object.keys(ops ?? {}).map((method) => ({ method: method.toUpperCase(), path })));
  };

  app.get('/healthz', { config: { rateLimitExempt: LIVENESS_EXEMPT }, schema: { summary: 'Typed liveness', description: 'OK while the service is live and its journal answers a real read; says nothing about anyone\'s records.', tags: ['discovery'], response: { 200: Health } } }, async () => {
    // A real read of the journal, of a grain nothing is written to: it proves the journal answers and reveals no one's count.
    await services.journal.latestSeq(NO_GRAIN);
    return ok({ status: 'live', service: 'legalwork', version: CONTRACT_VERSION, build: 'preview', journal: { reachable: true }, uptimeSeconds: Math.floor((Date.now() - started) / 1000) });
  });

  app.get('/pricing', { schema: { summary: 'The Pricing Document', description: 'The posted flat prices per matter type and per act, who is merchant of record for each fee, and how the key\'s spend ceiling counts. Never hourly, never a percent of an outcome; this preview charges nothing.', tags: ['discovery'], response: { 200: Pricing } } }, async () =>
    ok({
      $type: 'PricingDocument',
      currency: 'USD',
      model: 'free',
      preview: true,
      note: 'This preview charges nothing: the pricing model is free, and the figures are the posted flat targets.',
      feeShape: 'flat',
      hourly: false,
      percentOfOutcome: false,
      reads: { priceUsd: 0, metered: false },
      postedPrices: { provisionalFilingUsd: POSTED_PRICES.patent_provisional.productFeeUsd, utilityFilingUsd: POSTED_PRICES.patent_utility.productFeeUsd },
      meter: { releasesOn: 'fulfilled', promise: 'no filing, no charge: the Meter releases only when a Matter is fulfilled (receipt on file)' },
      matterTypes: MATTER_TYPES.map((matterType) => {
        const rail = RAIL_OF[matterType];
        return {
          matterType,
          rail,
          productFeeUsd: POSTED_PRICES[matterType].productFeeUsd,
          legalFeePerActUsd: POSTED_PRICES[matterType].legalFeePerActUsd,
          perActInsuranceUsd: PER_ACT_INSURANCE_USD,
          merchantOfRecord: rail === 'patent' ? 'platform (Product Fee and Legal Fee)' : 'platform for the Product Fee; the Signer for the Legal Fee, recorded and never platform revenue',
        };
      }),
      acts: CAPABILITIES.filter((c) => c.effect === 'act').map((c) => ({ method: c.method, path: openapiPath(c.path), priceUsd: c.priceUsd, gate: gateView(c.gate) })),
      spendCeiling: { setBy: 'the caller', how: 'POST /keys with spendCeilingUsd', hard: true, counts: 'the posted price of each paid act taken with the key: opening a Matter (POST /matters, POST /orders: its Product Fee) and the act routes of the capability catalog', refusal: '403 BLOCKED naming the ceiling; nothing is written' },
    }),
  );

  app.get('/icp.json', { schema: { summary: 'Agent classes and the access-tier ladder', description: 'Who the service is for (each consumer pattern), and the access tiers with what each grants and whether it is live.', tags: ['discovery'], response: { 200: IdealCustomerProfile } } }, async () =>
    ok({ $type: 'IdealCustomerProfile', service: 'legalwork', agentClasses: AGENT_CLASSES.filter((a) => CONSUMER_PATTERNS.includes(a.consumerPattern)), accessTiers: TIER_LADDER, reservedActs: 'a filing signature, a demand letter on attorney letterhead, legal advice: never performed by the agent or the service; posted as Gigs to licensed Signers' }),
  );

  app.get('/.well-known/agents.json', { schema: { summary: 'The capability card and probe manifest', description: 'Everything an agent needs to start: the contract and its pin, how to authenticate, the tier ladder, every HTTP route, the capability catalog with gates and prices, the MCP command and the probes to run.', tags: ['discovery'], response: { 200: CapabilityCard } } }, async (request) => {
    const base = baseOf(request);
    return {
      $type: 'AgentCapabilityCard',
      name: 'legalwork',
      description: SUMMARY,
      version: CONTRACT_VERSION,
      url: base,
      contract: { openapi: `${base}/openapi.json`, openapiCompact: `${base}/openapi.json?form=compact`, openapiVersion: OPENAPI_VERSION, version: CONTRACT_VERSION, suite: `${base}/verify/suite.json`, suiteId: SUITE_ID, pin: SUITE_PIN },
      auth: { scheme: 'bearer', header: 'Authorization: Bearer <key>', issue: 'POST /keys (form field email; optional building, spendCeilingUsd)', keyless: 'every read by id, and everything inside a sandbox grain; top-level lists and tails show only the calling key\'s records' },
      tiers: TIER_LADDER,
      http: { routes: routes() },
      capabilities: CAPABILITIES.map((c) => ({ method: c.method, path: openapiPath(c.path), effect: c.effect, gate: gateView(c.gate), ...(c.priceUsd !== undefined ? { priceUsd: c.priceUsd } : {}) })),
      mcp: MCP,
      probes: suiteDocument().requirements.map((r) => ({ id: r.id, method: r.method, path: r.path, status: r.status })),
      docs: { humans: `${base}/docs`, sandbox: `${base}/sandbox`, llms: `${base}/llms.txt` },
      webhooks: {
        register: 'POST /webhooks {url, events[]} (at the top level with a key; inside a sandbox grain, keyless): the answer shows the signing secret once',
        events: [...WEBHOOK_EVENT_TYPES],
        signing: 'Standard Webhooks: headers webhook-id, webhook-timestamp, webhook-signature (HMAC-SHA256 with the endpoint\'s whsec_ secret)',
        delivery: 'at least once, in journal order per endpoint; retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; an endpoint failing for 5 days in a row is disabled',
        contract: `${base}/openapi.json#/webhooks`,
      },
    };
  });

  app.get('/.well-known/agent-card.json', { schema: { summary: 'The capability card in the A2A AgentCard shape', description: 'The same card in the A2A AgentCard shape: skills, transports and security. The interface itself is the HTTP+JSON contract, not A2A tasks.', tags: ['discovery'], response: { 200: AgentCard } } }, async (request) => {
    const base = baseOf(request);
    return {
      protocolVersion: '0.3.0',
      name: 'legalwork',
      description: `${SUMMARY} The interface is the HTTP+JSON contract at /openapi.json (REST resources, not A2A tasks); /openapi.json?form=compact is the same contract sized for an agent's context (each door once).`,
      url: base,
      preferredTransport: 'HTTP+JSON',
      provider: { organization: 'legalwork', url: base },
      version: CONTRACT_VERSION,
      documentationUrl: `${base}/docs`,
      capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: true },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'an API key from POST /keys; reads and sandbox grains need none' } },
      security: [{ bearer: [] }],
      defaultInputModes: ['application/json'],
      defaultOutputModes: ['application/json', 'text/event-stream'],
      skills: [
        { id: 'matters', name: 'Open and advance Matters', description: 'Open a Matter of a ratified type, advance it through intake, prepare, examine, review; reserved acts (sign, file) escalate to licensed Signers.', tags: ['legal', 'matters', 'patent', 'trademark'], examples: ['POST /matters {"matterType":"patent_provisional"}', 'POST /matters/{id}/advance'] },
        { id: 'orders', name: 'Order a provisional filing', description: 'Mint a patent-rail provisional Matter and advance it until it waits on a Signer.', tags: ['patent', 'order'], examples: ['POST /orders'] },
        { id: 'sandbox', name: 'Rehearse in a sandbox', description: 'Keyless, synthetic, TTL-bound workspaces with magic fixtures.', tags: ['sandbox'], examples: ['POST /workspaces'] },
        ...CAPABILITIES.map((c) => ({ id: `${c.method.toLowerCase()}${openapiPath(c.path).replace(/[{}]/g, '').replace(/\//g, '-')}`, name: `${c.method} ${openapiPath(c.path)}`, description: `${c.purpose} (effect ${c.effect}, gate ${JSON.stringify(gateView(c.gate))})`, tags: [c.effect, ...(c.gate.kind === 'none' ? [] : [c.gate.kind])] })),
      ],
    };
  });

  app.get('/llms.txt', { schema: { summary: 'Plain-text overview for models (llms.txt)', description: 'A short plain-text map of the service for language models, linking the contract, the card and the docs.', tags: ['discovery'], response: { 200: Media('text/plain', 'the llms.txt overview') } } }, async (request, reply) => {
    const base = baseOf(request);
    reply.type('text/plain; charset=utf-8');
    return [
      '# legalwork',
      '',
      `> ${SUMMARY}`,
      '',
      'Reads by id are keyless; so is everything inside a sandbox grain (POST /workspaces). Top-level writes need an API key: POST /keys (form field email), then Authorization: Bearer <key>. At the top level each key lists, tails and writes only its own records. Refusals are JSON with a worded `error` and a machine `code`.',
      '',
      '## Retries and races',
      '',
      '- Send `Idempotency-Key: <a fresh UUID>` on every POST and PUT, and the same key when you retry it (a dropped connection, a timeout): the retry gets the first status and body again with `Idempotent-Replayed: true`, and nothing runs twice (no second Matter, Gig or fee). Kept 24 hours per API key (in a sandbox, per grain); at the top level it needs an API key. 409 `IDEMPOTENCY_KEY_IN_USE`: the first is still running, retry in a moment. 422 `IDEMPOTENCY_KEY_REUSED`: that key named another request. 409 `IDEMPOTENCY_ANSWER_LOST`: the first committed but its answer was lost in a crash; read what `wrote` names, do not resend under a new key.',
      '- Send `If-Match: "<version>"` (the ETag of the Matter, Deadline Ladder or Enrollment you read) on its write when the decision depends on the state you saw: 412 `VERSION_MISMATCH` (with `currentVersion`) when it moved on; read again and decide again. `GET …/matters/{id}/inspection` says which writes a Matter takes now and why each other one would be refused.',
      '- To hear of a filing, an attestation or a deadline rung without polling, register a webhook: `POST /webhooks {url, events[]}` (`outcome.filed` carries the artifact hash, the Attestation and the receipt). Deliveries are signed per Standard Webhooks with the secret the 201 shows once; verify them, answer 2xx within 10 s, and drop repeats by `id`.',
      '',
      '## Contract',
      '',
      `- [OpenAPI ${OPENAPI_VERSION} contract](${base}/openapi.json): every route, its parameters, request and response schemas, version ${CONTRACT_VERSION}`,
      `- [The compact contract](${base}/openapi.json?form=compact): the same contract for an agent's context: each door once, the sandbox grain prefixes as path-level servers, each answer once`,
      `- [Contract suite ${SUITE_ID}](${base}/verify/suite.json): declarative GET rows; pin sha256 ${SUITE_PIN}; run with \`legalwork verify --url ${base}\``,
      `- [Capability card](${base}/.well-known/agents.json): routes, the MCP command, the access tiers, probes`,
      '',
      '## Docs',
      '',
      `- [Docs for people](${base}/docs): the Matter lifecycle, state diagrams and a walk-through`,
      `- [Sandbox](${base}/sandbox): open a workspace and walk a Matter in the browser`,
      `- [Pricing](${base}/pricing): posted flat prices (the preview charges nothing)`,
      '',
      '## Optional',
      '',
      `- [Agent classes and tiers](${base}/icp.json)`,
      `- [SKU catalog](${base}/catalog): empty in this preview`,
      `- MCP: \`${MCP.command} ${MCP.args.join(' ')}\` with LEGALWORK_URL=${base}`,
      '',
    ].join('\n');
  });

  app.get('/catalog', { schema: { summary: 'The SKU catalog (typed EMPTY: zero SKUs) and the SKU declaration contract', description: 'No SKU is declared in this preview, so nothing meters: a typed EMPTY, with the meter\'s promise and the fields a SKU will declare.', tags: ['discovery'], response: { 200: SkuCatalog } } }, async () => ({
    ...empty('no SKU is declared in this preview: nothing meters. A SKU appears here once declared under the contract below.'),
    skus: [],
    meterPromise: {
      promise: 'no record, no charge: a served record releases the meter, and an empty result inside a stated scope counts as a record; a not-found, an unreachable upstream or a retried failed call never meters',
      releasesOn: ['a served record', 'an empty result inside the stated scope'],
      neverOn: ['not found', 'unreachable upstream', 'a retried failed call'],
    },
    skuContract: {
      fields: [
        { name: 'name', means: 'the SKU name' },
        { name: 'whatYouGet', means: 'what the caller receives, in words' },
        { name: 'priceUsd', means: 'the posted flat price; never hourly, never a percent of outcome' },
        { name: 'gate', means: 'none, requiresAccess or requiresSigner' },
        { name: 'feeLine', means: 'which fee line the price lands on (Product Fee, Legal Fee, insurance)' },
        { name: 'merchantOfRecord', means: 'the platform (patent rail) or the individual Signer (state rail, Legal Fee)' },
        { name: 'meterGrain', means: 'what one metered unit is' },
        { name: 'proofPredicate', means: 'the data predicate that proves a record was served: no record, no charge' },
      ],
    },
  }));
}
