/**
 * The composition root: the one place the engine, its ports and the HTTP
 * edge are put together. The service (`server.ts`), the CLI's embedded mode
 * and the tests all build through here, so each runs the same wiring.
 */
import type { FastifyInstance } from 'fastify';
import { systemClock, type Clock } from './domain/clock.ts';
import { registeredSigners } from './domain/registered-signers.ts';
import { supplySecretOf } from './domain/supply-secret.ts';
import { fixtureSignerRegistry, type SignerRegistry } from './domain/signer-registry.ts';
import { simulatedSupplyNetwork, type SupplyNetwork } from './domain/supply-network.ts';
import { createBus } from './engine/bus.ts';
import { CatalogActs } from './engine/catalog-acts.ts';
import { Conflicts } from './engine/conflicts.ts';
import { CreationBound, type CreationBoundOptions } from './engine/creation-bound.ts';
import { ENROLLMENT, Firms } from './engine/firms.ts';
import { fixturesApply, sandboxKindOf } from './engine/grains.ts';
import { GrainRetention, type RetentionOptions } from './engine/grain-retention.ts';
import { CommandHandler } from './engine/handle-command.ts';
import { IdempotencyRecords } from './engine/idempotency.ts';
import { Keys } from './engine/keys.ts';
import { LADDER, Ladders } from './engine/ladders.ts';
import { MATTER, Matters } from './engine/matters.ts';
import { Outbox } from './engine/outbox.ts';
import { Supervisor } from './engine/supervisor.ts';
import { Tenants } from './engine/tenants.ts';
import { Webhooks, type WebhookOptions } from './engine/webhooks.ts';
import { Workspaces } from './engine/workspaces.ts';
import { build, type HttpOptions } from './http/app.ts';
import type { Services } from './http/services.ts';
import { MemoryJournal } from './journal/memory.ts';
import type { AdapterName } from './journal/journal-metrics.ts';
import { observedJournal } from './journal/observed.ts';
import { PostgresJournal } from './journal/postgres.ts';
import type { JournalStore } from './journal/store.ts';
import { webRoutes } from './web/routes.ts';

export interface AppOptions extends Omit<HttpOptions, 'pages'> {
  journal: JournalStore;
  clock?: Clock;
  supply?: SupplyNetwork;
  /** The top level's Signer registry (default: nobody registered); sandbox grains always ask the fixture registry. */
  signers?: SignerRegistry;
  /** The supply network's Standard Webhooks signing secret (`whsec_…`); unset, the top-level callback door is BLOCKED. */
  supplySecret?: string;
  sandboxTtlSeconds?: number;
  /** Wall clock (ms) for sandbox TTLs, the creation bound, the 24 hours an idempotency record is kept and API keys' expiries and last uses; tests inject one. Absent: the database's clock on a journal several processes share, else this process's. */
  sandboxNow?: () => number;
  /** The per-caller creation bound on POST /workspaces, /tenants, /firms (default 1000 per kind per hour). */
  creationBound?: Partial<CreationBoundOptions>;
  residentActors?: number;
  /** How many entries the bounded caches keep (default: each cache's own; tests make them small to reach them): key records and their owners, sandbox grains of each kind, settled Idempotency-Key records. */
  caches?: { keys?: number; grains?: number; idempotencyRecords?: number };
  /** Webhook delivery: its time scale and timeout (tests), private addresses (local development), its transport. */
  webhooks?: WebhookOptions;
  /** Expired sandbox grains purged: seconds past expiry (`LEGALWORK_SANDBOX_PURGE_AFTER`; null: never), and for tests and the bench the sweep's interval and step budget. */
  retention?: Omit<RetentionOptions, 'now' | 'forgetGrain'>;
}

/** The journal's adapter, as its metrics and spans name it. */
const adapterOf = (journal: JournalStore): AdapterName => (journal instanceof PostgresJournal ? 'postgresql' : journal instanceof MemoryJournal ? 'memory' : 'sqlite');

export function createServices(options: AppOptions): Services {
  const clock = options.clock ?? systemClock;
  // Timed and traced where telemetry is on; else the store itself.
  const journal = observedJournal(options.journal, adapterOf(options.journal));
  const bus = createBus();
  const supervisor = new Supervisor({ journal, bus, clock, residentActors: options.residentActors, entities: [MATTER, LADDER, ENROLLMENT] });
  const commands = new CommandHandler(supervisor);
  const supply = options.supply ?? simulatedSupplyNetwork();
  const outbox = new Outbox(supervisor);
  const topLevelSigners = options.signers ?? registeredSigners(async () => []);
  const signersOf = (grain: string) => (fixturesApply(grain) ? fixtureSignerRegistry : topLevelSigners);
  const matters = new Matters(supervisor, commands, supply, outbox, signersOf);
  const ladders = new Ladders(supervisor, commands);
  // Each Matter's Asset opens its Deadline Ladder in the transaction that opens the Matter.
  matters.mintExtensions.push(ladders.mintExtension);
  const caches = options.caches ?? {};
  // Windows that compare instants different processes wrote read the database's clock on a shared journal, so the
  // processes agree on their edges whatever their own clocks say (journal/postgres-clock.ts); a test's clock wins.
  const shared = journal.shared;
  const databaseNow = shared ? () => shared.now() : undefined;
  const wallClock = options.sandboxNow ?? databaseNow;
  const tenants = new Tenants(supervisor, options.sandboxTtlSeconds, wallClock, caches.grains);
  // A Tenant's routing cap is a mechanics Guardrail on every Matter in its grain.
  matters.grainGuardrails = (grain) => tenants.guardrailsOf(grain);
  const workspaces = new Workspaces(supervisor, options.sandboxTtlSeconds, wallClock, caches.grains);
  const firms = new Firms(supervisor, commands, options.sandboxTtlSeconds, wallClock, caches.grains);
  const grainsOfKind = { workspace: workspaces, tenant: tenants, firm: firms };
  const retention = new GrainRetention(journal, { ...options.retention, now: wallClock, forgetGrain: (grain) => grainsOfKind[sandboxKindOf(grain)!].forget(grain) });
  return {
    journal,
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
    keys: new Keys(supervisor, { now: wallClock, capacity: caches.keys }),
    workspaces,
    // Admissions are counted where the journal is shared: on PostgreSQL, in its database, so every process on it
    // counts the same ones; on the embedded journal (one process per file) in this process's memory. Chosen here, by
    // the journal's adapter, rather than through the JournalStore contract: the ledger is the limiter's state, not the journal's.
    creationBound: new CreationBound({ now: wallClock, ledger: journal instanceof PostgresJournal ? journal.admissions() : undefined, ...options.creationBound }),
    tenants,
    firms,
    retention,
    conflicts: new Conflicts(supervisor),
    idempotency: new IdempotencyRecords(supervisor, wallClock, caches.idempotencyRecords),
    webhooks: new Webhooks(supervisor, { ...(databaseNow ? { now: databaseNow } : {}), grainNow: wallClock, ...options.webhooks }),
  };
}

/** The service's app over a journal and its ports: the services, then the HTTP edge over them, with the pages for people. */
export function createApp(options: AppOptions): Promise<FastifyInstance & { services: Services }> {
  return build(createServices(options), { ...options, pages: webRoutes });
}
