/**
 * The app factory: builds the Fastify app over the services the composition
 * root (`src/compose.ts`) made, without listening.
 */
import { maxHeaderSize } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import { requestIds } from '../domain/ids.ts';
import { installAuth } from './auth.ts';
import { installIdempotency } from './idempotency.ts';
import { installErrorHandling } from './errors.ts';
import { installContract } from './openapi.ts';
import { installEtags } from './etag.ts';
import { capabilityRoutes } from './routes/capabilities.ts';
import { discoveryRoutes } from './routes/discovery.ts';
import { keyRoutes } from './routes/keys.ts';
import { verifyRoutes } from './routes/verify.ts';
import { deadlineRoutes } from './routes/deadlines.ts';
import { eventRoutes } from './routes/events.ts';
import { matterRoutes } from './routes/matters.ts';
import { conflictRoutes } from './routes/conflicts.ts';
import { firmRoutes } from './routes/firms.ts';
import { enrollmentInspectionRoutes, inspectionRoutes } from './routes/inspection.ts';
import { enrollmentPopulationRoutes, populationRoutes } from './routes/population.ts';
import { tenantRoutes } from './routes/tenants.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { workspaceRoutes } from './routes/workspaces.ts';
import { installReplyCheck } from './reply-check.ts';
import { installSupplySignature } from './supply-callback.ts';
import { buildSerializer } from './serializers.ts';
import { stampProvenance } from './sandbox.ts';
import type { Services } from './services.ts';
import { SseHub } from './sse.ts';
import { installJsonBody } from './json-body.ts';
import { installValidation } from './validation.ts';
import { installRateLimit, type RateLimitOptions } from './rate-limit.ts';
import { installEdgeLimits, timeoutOptions, type EdgeLimits } from './edge-limits.ts';
import { frameworkRefusal, installClientErrors } from './client-errors.ts';
import { installClosing } from './drain.ts';
import { installRequestMetrics } from './edge-metrics.ts';
import { metricsOn } from '../lib/telemetry.ts';

/** What the HTTP edge itself is tuned by; the services come from the composition root (`src/compose.ts`). */
export interface HttpOptions {
  logger?: boolean;
  /** Largest accepted request body, in bytes; larger is 413. */
  bodyLimit?: number;
  /** SSE keep-alive comment interval, ms (default 15 000). */
  sseKeepAliveMs?: number;
  /** Bytes an SSE subscriber may fall behind before it is dropped (default 1 MiB). */
  sseMaxBufferedBytes?: number;
  /** The per-caller request rate and where it is counted (`rate-limit.ts`); absent, no rate limit (the service reads it from LEGALWORK_RATE_LIMIT). */
  rateLimit?: RateLimitOptions;
  /** Open event streams one caller may hold in this process; absent, no cap (the service reads it from LEGALWORK_MAX_STREAMS). */
  maxStreams?: number;
  /** The request timeout and the connection cap (`edge-limits.ts`); absent, neither (the service reads them from LEGALWORK_REQUEST_TIMEOUT_MS and LEGALWORK_MAX_CONNECTIONS). */
  edge?: EdgeLimits;
  /** Registers what traces a request (the telemetry adapter's request span, `src/telemetry/tracing.ts`) before any hook or route; absent, requests are not traced. */
  instrument?: (app: FastifyInstance) => Promise<void>;
  /** The pages for people (`src/web/routes.ts`), registered beside the API by the composition root: the edge imports nothing of them. */
  pages?: FastifyPluginAsync<{ services: Services }>;
}

export const DEFAULT_BODY_LIMIT = 256 * 1024;

/**
 * The service's HTTP plumbing without its routes: body limit, prototype-
 * poisoning guards, request ids, strict validation, the one error handler,
 * the `request-id` header, and the request timeout and connection cap when
 * given. The bare benchmark route runs on the same.
 */
export function createFastify(options: Pick<HttpOptions, 'logger' | 'bodyLimit' | 'edge'> = {}): FastifyInstance {
  const newRequestId = requestIds();
  const timeouts = timeoutOptions(options.edge);
  const app = Fastify({
    logger: options.logger ? { level: 'info' } : false,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    genReqId: newRequestId,
    // A request arriving while the app closes is refused by `installClosing`, from the catalog, not with Fastify's bare 503.
    return503OnClosing: false,
    // A path id longer than the request head Node reads (16 KiB) cannot arrive: every id reaches its route, which refuses it from the catalog (Fastify's default, 100, answered its own 414).
    routerOptions: { maxParamLength: maxHeaderSize },
    frameworkErrors: frameworkRefusal,
    // Node would answer an HTTP/1.1 request without Host with a bare 400; `installClientErrors` refuses it from the catalog.
    http: { requireHostHeader: false, ...timeouts.http },
    // Reply serializers compiled once per distinct schema (serializers.ts).
    schemaController: { compilersFactory: { buildSerializer } },
    ...(timeouts.requestTimeout === undefined ? {} : { requestTimeout: timeouts.requestTimeout }),
  });
  installClientErrors(app, newRequestId, options.edge?.requestTimeoutMs);
  installEdgeLimits(app, options.edge);
  installClosing(app);
  installJsonBody(app);
  installValidation(app);
  installErrorHandling(app);
  // Only where a sink records them: off, an answer pays nothing for them.
  if (metricsOn()) installRequestMetrics(app);
  // A callback hook: every answer passes it, without a promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('request-id', request.id);
    done(null, payload);
  });
  return app;
}

/** The app over its services, without listening, so tests run the real app in-process or on a real port. */
export async function build(services: Services, options: HttpOptions = {}): Promise<FastifyInstance & { services: Services }> {
  const app = createFastify(options);
  // First of all: the request's span is open before the rate limit (or anything else) runs.
  if (options.instrument) await options.instrument(app);
  // Its onRequest hook runs first of all: a request past its caller's rate is refused before anything else is done for it.
  if (options.rateLimit) await installRateLimit(app, services, options.rateLimit);
  // Who calls a signed door is known before a retry under a key is replayed to it.
  installSupplySignature(app, services.supplySecret);
  // Its preValidation runs ahead of a route's own, and of auth's preHandler (a paid act's reservation): a replayed answer reserves nothing.
  installIdempotency(app, services.idempotency);
  installAuth(app, services);
  await installContract(app);
  // After the contract's onRoute: a tagged read's schema is the copy it made, extended with If-None-Match and the 304.
  installEtags(app);
  app.decorate('services', services);
  const sse = new SseHub(services.journal, services.bus, { keepAliveMs: options.sseKeepAliveMs, maxBufferedBytes: options.sseMaxBufferedBytes, maxStreamsPerCaller: options.maxStreams });
  // Open event streams would hold server.close() forever: end them before it runs.
  app.addHook('preClose', async () => sse.close());
  // Effects the journal asked for before a stop (or a crash) are delivered again; retries end with the app.
  app.addHook('onReady', async () =>
    void services.outbox.resume((intent) =>
      app.log.warn({ grain: intent.grain, seq: intent.seq, stream: intent.stream, kind: intent.kind, detail: intent.unreadable?.message }, 'an intent the outbox owes cannot be read from the journal: its effect (a Gig post) is not made; the intents after it are delivered. Mend or settle it by hand'),
    ),
  );
  app.addHook('preClose', async () => services.outbox.close());
  // Webhook deliveries resume where the journal says they stood; a stop ends their waits (a restart resumes them).
  app.addHook('onReady', async () => void services.webhooks.resume());
  app.addHook('preClose', async () => services.webhooks.close());
  // Expired sandbox grains are purged after their grace period (engine/grain-retention.ts); a stop ends the sweep after its step.
  app.addHook('onReady', async () => services.retention.start((error) => app.log.error({ err: error }, 'a sweep of expired sandbox grains failed; the next one tries again')));
  app.addHook('preClose', async () => services.retention.close());
  // What commits queued behind them (a Matter's answer kept as a row) is done before the journal closes after the app.
  app.addHook('preClose', async () => services.supervisor.afterCommitsSettled());
  app.addHook('preSerialization', stampProvenance);
  // After the stamp: the reply is checked as it will be written.
  installReplyCheck(app);

  await app.register(keyRoutes, { services });
  await app.register(discoveryRoutes, { services });
  await app.register(verifyRoutes);
  if (options.pages) await app.register(options.pages, { services });
  await app.register(workspaceRoutes, { services });
  await app.register(tenantRoutes, { services });
  await app.register(firmRoutes, { services });
  // The same resource routes mount on every grain that serves them: the top
  // level (writes need a key) and each sandbox workspace (keyless). Tenants
  // mount their Matter doors themselves (minting there needs a declared Offer).
  for (const prefix of ['', '/workspaces/:workspaceId']) {
    await app.register(capabilityRoutes, { services, prefix });
    await app.register(matterRoutes, { services, prefix });
    await app.register(deadlineRoutes, { services, prefix });
    // Per-practitioner conflicts ledgers: 403 at the top level, open on synthetic state in a workspace.
    await app.register(conflictRoutes, { services, prefix });
  }
  await app.register(deadlineRoutes, { services, prefix: '/tenants/:tenantId' });
  // The inspection (one record on its machine) wherever its record's doors are: Matters and ladders, and a firm's Enrollments.
  for (const prefix of ['', '/workspaces/:workspaceId', '/tenants/:tenantId']) await app.register(inspectionRoutes, { services, prefix });
  await app.register(enrollmentInspectionRoutes, { services });
  // Where records gather (a grain's records on their machine), beside the inspection of one.
  for (const prefix of ['', '/workspaces/:workspaceId', '/tenants/:tenantId']) await app.register(populationRoutes, { services, prefix });
  await app.register(enrollmentPopulationRoutes, { services });
  // Webhook endpoints: the calling key's at the top level, a grain's where it holds Matters.
  for (const prefix of ['', '/workspaces/:workspaceId', '/tenants/:tenantId']) await app.register(webhookRoutes, { services, prefix });
  // Every grain has its own event tail.
  for (const prefix of ['', '/workspaces/:workspaceId', '/tenants/:tenantId', '/firms/:firmId']) {
    await app.register(eventRoutes, { services, sse, prefix });
  }
  // `decorate('services', …)` above added the field; Fastify's instance type does not track decorations.
  return app as FastifyInstance & { services: Services };
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}
