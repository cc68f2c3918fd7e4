/** The engine and its ports, as the routes see them. */
import type { Clock } from '../domain/clock.ts';
import type { SignerRegistry } from '../domain/signer-registry.ts';
import type { SupplyNetwork } from '../domain/supply-network.ts';
import type { CommitBus } from '../engine/bus.ts';
import type { Conflicts } from '../engine/conflicts.ts';
import type { CreationBound } from '../engine/creation-bound.ts';
import type { IdempotencyRecords } from '../engine/idempotency.ts';
import type { Keys } from '../engine/keys.ts';
import type { Ladders } from '../engine/ladders.ts';
import type { Outbox } from '../engine/outbox.ts';
import type { CatalogActs } from '../engine/catalog-acts.ts';
import type { Matters } from '../engine/matters.ts';
import type { Supervisor } from '../engine/supervisor.ts';
import type { Firms } from '../engine/firms.ts';
import type { GrainRetention } from '../engine/grain-retention.ts';
import type { Tenants } from '../engine/tenants.ts';
import type { Webhooks } from '../engine/webhooks.ts';
import type { Workspaces } from '../engine/workspaces.ts';
import type { JournalStore } from '../journal/store.ts';

export interface Services {
  journal: JournalStore;
  clock: Clock;
  bus: CommitBus;
  supervisor: Supervisor;
  supply: SupplyNetwork;
  /** Delivers what the journal asks to leave the process (Gig posts), after the commit. */
  outbox: Outbox;
  /** What the capability catalog's records, acts and reserved acts journal. */
  catalogActs: CatalogActs;
  /** The Signer registry of a grain: the fixture Signers in a sandbox, the registered ones at the top level. */
  signersOf: (grain: string) => SignerRegistry;
  /** The supply network's signing secret; undefined when none is connected. */
  supplySecret?: string;
  matters: Matters;
  ladders: Ladders;
  workspaces: Workspaces;
  keys: Keys;
  creationBound: CreationBound;
  tenants: Tenants;
  firms: Firms;
  conflicts: Conflicts;
  /** The kept answers of requests under an Idempotency-Key. */
  idempotency: IdempotencyRecords;
  /** Webhook endpoints and the durable delivery of their events. */
  webhooks: Webhooks;
  /** Expired sandbox grains purged after their grace period. */
  retention: GrainRetention;
}
