/**
 * Starts the service on the configured journal and port. SIGTERM (and SIGINT)
 * drain: the listener closes, in-flight requests finish, keep-alive
 * connections close as they go idle, the journal flushes and closes, then the
 * process exits 0, within `LEGALWORK_DRAIN_SECONDS` (default 10) whatever
 * the clients do.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clockFromEnv } from './domain/clock.ts';
import { parseSignerRegistry, signerRegistryFile } from './domain/registered-signers.ts';
import { supplySecretFromEnv } from './domain/supply-secret.ts';
import { createApp } from './compose.ts';
import { drainSecondsOf, installDrain } from './http/drain.ts';
import { edgeLimitsFromEnv } from './http/edge-limits.ts';
import { webhookOptionsFromEnv } from './engine/webhooks.ts';
import { residentActorsOf } from './engine/supervisor.ts';
import { purgeAfterOf } from './engine/grain-retention.ts';
import { callerLimitsFromEnv } from './http/rate-limit.ts';
import { PostgresJournal } from './journal/postgres.ts';
import { SqliteJournal } from './journal/sqlite.ts';
import type { JournalStore } from './journal/store.ts';
import type { RunningTelemetry } from './telemetry/index.ts';
import { telemetryFromEnv, telemetryWanted, type TelemetrySettings } from './telemetry/settings.ts';

export interface StartOptions {
  port?: number;
  host?: string;
  dataDir?: string;
  logger?: boolean;
  /** A worker of `serve --processes N`: its metrics go to the primary, which serves them (default: the only process). */
  clusterWorker?: boolean;
}

/**
 * Metrics and traces as the environment turns them on (`src/telemetry/`),
 * started before the journal opens so everything it builds reports through
 * them; null when both are off (nothing of prom-client or OpenTelemetry is loaded).
 */
async function telemetryOf(settings: TelemetrySettings, clusterWorker: boolean): Promise<RunningTelemetry | null> {
  if (!telemetryWanted(settings)) return null;
  const { startTelemetry } = await import('./telemetry/index.ts');
  return startTelemetry(settings, clusterWorker ? 'worker' : 'single');
}

/**
 * The journal the environment names: PostgreSQL when LEGALWORK_DATABASE_URL
 * is set (in LEGALWORK_DATABASE_SCHEMA if given), shared with every other
 * process on it; else the embedded SQLite journal in `dataDir`.
 */
export async function journalFromEnv(dataDir: string): Promise<JournalStore> {
  const url = process.env.LEGALWORK_DATABASE_URL;
  if (url) return PostgresJournal.connect({ url, schema: process.env.LEGALWORK_DATABASE_SCHEMA || undefined });
  return new SqliteJournal(dataDir);
}

export async function start(options: StartOptions = {}) {
  const port = options.port ?? Number(process.env.PORT ?? 3000);
  const host = options.host ?? process.env.HOST ?? '127.0.0.1';
  const dataDir = options.dataDir ?? process.env.LEGALWORK_DATA ?? join(process.cwd(), 'data');
  const registry = process.env.LEGALWORK_SIGNER_REGISTRY || undefined;
  // Read once here so a missing or malformed registry stops the start, not the first result.
  if (registry) parseSignerRegistry(readFileSync(registry, 'utf8'), registry);
  // Every setting is read before the journal opens, so a malformed value stops the start (an open journal would hold the process).
  const settings = {
    clock: clockFromEnv(process.env.LEGALWORK_CLOCK),
    signers: signerRegistryFile(registry),
    supplySecret: supplySecretFromEnv(process.env),
    residentActors: residentActorsOf(process.env.LEGALWORK_RESIDENT_ACTORS),
    sandboxTtlSeconds: process.env.LEGALWORK_SANDBOX_TTL ? Number(process.env.LEGALWORK_SANDBOX_TTL) : undefined,
    retention: { purgeAfterSeconds: purgeAfterOf(process.env.LEGALWORK_SANDBOX_PURGE_AFTER) },
    logger: options.logger ?? process.env.LEGALWORK_LOG !== 'off',
    webhooks: webhookOptionsFromEnv(process.env),
    // The request timeout and the connection cap (always on).
    edge: edgeLimitsFromEnv(process.env),
    // The per-caller rate and stream cap (on unless set "off").
    ...callerLimitsFromEnv(process.env),
  };
  const telemetrySettings = telemetryFromEnv(process.env);
  const drainMs = drainSecondsOf(process.env.LEGALWORK_DRAIN_SECONDS) * 1000;
  const telemetry = await telemetryOf(telemetrySettings, options.clusterWorker ?? false);
  let journal: JournalStore;
  let app: Awaited<ReturnType<typeof createApp>>;
  try {
    journal = await journalFromEnv(dataDir);
  } catch (error) {
    await telemetry?.stop();
    throw error;
  }
  try {
    app = await createApp({ journal, ...settings, ...(telemetry?.instrument ? { instrument: telemetry.instrument } : {}) });
  } catch (error) {
    // A setting the app checks as it is built (a sandbox TTL out of range): close the journal, so the process ends with the error.
    await journal.close();
    await telemetry?.stop();
    throw error;
  }
  app.addHook('onClose', async () => journal.close());
  // After the journal: the spans of the last requests are exported, and the metrics door closes.
  if (telemetry) app.addHook('onClose', async () => telemetry.stop());
  if (telemetry?.metricsAddress) app.log.info({ address: telemetry.metricsAddress }, 'metrics served on the operator address');
  const drain = installDrain(app);
  const address = await app.listen({ port, host }).catch(async (error: unknown) => {
    // The port is taken, say: close the app and its journal, so the process ends with the error.
    await app.close();
    throw error;
  });
  let closing = false;
  const stop = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'draining');
    void drain(drainMs).then(({ forced }) => {
      if (forced) app.log.warn({ drainMs }, 'the drain deadline passed: the connections still open were closed');
      process.exit(0);
    }, () => process.exit(1));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  return { app, address, metricsAddress: telemetry?.metricsAddress };
}
