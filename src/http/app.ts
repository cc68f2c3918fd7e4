/**
 * The app factory: builds the Fastify app over a journal and the ports, without
 * listening, so tests run the real app in-process or on a real port.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { systemClock, type Clock } from '../domain/clock.ts';
import { requestIds } from '../domain/ids.ts';
import { registeredSigners } from '../domain/registered-signers.ts';
import { fixtureSignerRegistry, type SignerRegistry } from '../domain/signer-registry.ts';
import { simulatedSupplyNetwork, type SupplyNetwork } from '../domain/supply-network.ts';
import { createBus } from '../engine/bus.ts';
import { Keys } from '../engine/keys.ts';
import { LADDER, Ladders } from '../engine/ladders.ts';
import { MATTER, Matters } from '../engine/matters.ts';
import { Supervisor } from '../engine/supervisor.ts';
import { Outbox } from '../engine/outbox.ts';
import { CatalogActs } from '../engine/catalog-acts.ts';
import { fixturesApply } from '../engine/grains.ts';
import { Conflicts } from '../engine/conflicts.ts';
import { CreationBound, type CreationBoundOptions } from '../engine/creation-bound.ts';
import { ENROLLMENT, Firms } from '../engine/firms.ts';
import { Tenants } from '../engine/tenants.ts';
import { Workspaces } from '../engine/workspaces.ts';
import type { JournalStore } from '../journal/store.ts';
import { installAuth } from './auth.ts';
import { installErrorHandling } from './errors.ts';
import { installContract } from './openapi.ts';
import { capabilityRoutes } from './routes/capabilities.ts';
import { discoveryRoutes } from './routes/discovery.ts';
import { keyRoutes } from './routes/keys.ts';
import { verifyRoutes } from './routes/verify.ts';
import { pageRoutes } from './pages/routes.ts';
import { deadlineRoutes } from './routes/deadlines.ts';
import { eventRoutes } from './routes/events.ts';
import { matterRoutes } from './routes/matters.ts';
import { conflictRoutes } from './routes/conflicts.ts';
import { firmRoutes } from './routes/firms.ts';
import { tenantRoutes } from './routes/tenants.ts';
import { workspaceRoutes } from './routes/workspaces.ts';
import { stampProvenance } from './sandbox.ts';
import { supplySecretOf } from './supply-callback.ts';
import type { Services } from './services.ts';
import { SseHub } from './sse.ts';
import { installJsonBody } from './json-body.ts';
import { installValidation } from './validation.ts';

export interface BuildOptions {
  journal: JournalStore;
  clock?: Clock;
  supply?: SupplyNetwork;
  /** The top level's Signer registry (default: nobody registered); sandbox grains always ask the fixture registry. */
  signers?: SignerRegistry;
  /** The supply network's Standard Webhooks signing secret (`whsec_…`); unset, the top-level callback door is BLOCKED. */
  supplySecret?: string;
  sandboxTtlSeconds?: number;
  /** Wall clock (ms) for sandbox TTLs and the creation bound; tests inject one. */
  sandboxNow?: () => number;
  /** The per-caller creation bound on POST /workspaces, /tenants, /firms (default 1000 per kind per hour). */
  creationBound?: Partial<CreationBoundOptions>;
  residentActors?: number;
  logger?: boolean;
  /** Largest accepted request body, in bytes; larger is 413. */
  bodyLimit?: number;
  /** SSE keep-alive comment interval, ms (default 15 000). */
  sseKeepAliveMs?: number;
  /** Bytes an SSE subscriber may fall behind before it is dropped (default 1 MiB). */
  sseMaxBufferedBytes?: number;
}

export const DEFAULT_BODY_LIMIT = 256 * 1024;

export function createServices(options: BuildOptions): Services {
  const clock = options.clock ?? systemClock;
  const bus = createBus();
  const supervisor = new Supervisor({ journal: options.journal, bus, clock, residentActors: options.residentActors, entities: [MATTER, LADDER, ENROLLMENT] });
  const supply = options.supply ?? simulatedSupplyNetwork();
  const outbox = new Outbox(supervisor);
  const topLevelSigners = options.signers ?? registeredSigners(async () => []);
  const signersOf = (grain: string) => (fixturesApply(grain) ? fixtureSignerRegistry : topLevelSigners);
  const matters = new Matters(supervisor, supply, outbox, signersOf);
  const ladders = new Ladders(supervisor);
  // Each Matter's Asset opens its Deadline Ladder in the transaction that opens the Matter.
  matters.mintExtensions.push(ladders.mintExtension);
  const tenants = new Tenants(supervisor, options.sandboxTtlSeconds, options.sandboxNow);
  // A Tenant's routing cap is a mechanics Guardrail on every Matter in its grain.
  matters.grainGuardrails = (grain) => tenants.guardrailsOf(grain);
  return {
    journal: options.journal,
    clock,
    bus,
    supervisor,
    supply,
    outbox,
    catalogActs: new CatalogActs(supervisor, supply, outbox),
    signersOf,
    supplySecret: supplySecretOf(options.supplySecret),
    matters,
    ladders,
    keys: new Keys(supervisor),
    workspaces: new Workspaces(supervisor, options.sandboxTtlSeconds, options.sandboxNow),
    creationBound: new CreationBound({ now: options.sandboxNow, ...options.creationBound }),
    tenants,
    firms: new Firms(supervisor, options.sandboxTtlSeconds, options.sandboxNow),
    conflicts: new Conflicts(supervisor),
  };
}

/**
 * The service's HTTP plumbing without its routes: body limit, prototype-
 * poisoning guards, request ids, strict validation, the one error handler and
 * the `request-id` header. The bare benchmark route runs on the same.
 */
export function createFastify(options: Pick<BuildOptions, 'logger' | 'bodyLimit'> = {}): FastifyInstance {
  const app = Fastify({
    logger: options.logger ? { level: 'info' } : false,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    genReqId: requestIds(),
    return503OnClosing: true,
  });
  installJsonBody(app);
  installValidation(app);
  installErrorHandling(app);
  app.addHook('onSend', async (request, reply) => {
    reply.header('request-id', request.id);
  });
  return app;
}

export async function build(options: BuildOptions): Promise<FastifyInstance & { services: Services }> {
  const services = createServices(options);
  const app = createFastify(options);
  installAuth(app, services);
  await installContract(app);
  app.decorate('services', services);
  const sse = new SseHub(services.journal, services.bus, { keepAliveMs: options.sseKeepAliveMs, maxBufferedBytes: options.sseMaxBufferedBytes });
  // Open event streams would hold server.close() forever: end them before it runs.
  app.addHook('preClose', async () => sse.close());
  // Effects the journal asked for before a stop (or a crash) are delivered again; retries end with the app.
  app.addHook('onReady', async () => void services.outbox.resume());
  app.addHook('preClose', async () => services.outbox.close());
  app.addHook('preSerialization', stampProvenance);

  await app.register(keyRoutes, { services });
  await app.register(discoveryRoutes, { services });
  await app.register(verifyRoutes);
  await app.register(pageRoutes);
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
  // Every grain has its own event tail.
  for (const prefix of ['', '/workspaces/:workspaceId', '/tenants/:tenantId', '/firms/:firmId']) {
    await app.register(eventRoutes, { services, sse, prefix });
  }
  return app as FastifyInstance & { services: Services };
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}
