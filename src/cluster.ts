/**
 * Several service processes behind one address (`legalwork serve
 * --processes N`), with Node's `cluster` module: the primary forks N
 * workers, each a whole service on the shared PostgreSQL journal, and the
 * listening socket is shared between them (the primary hands connections
 * out round-robin). What one process keeps in memory and several must share
 * is shared through the journal (docs/postgres.md), so a request may land on
 * any of them.
 *
 * The primary serves nothing itself: it restarts a worker that dies (a
 * SIGKILL, a crash), and on SIGTERM or SIGINT passes the signal to every
 * worker, each draining as a single process does, and exits once all have.
 */
import cluster, { type Worker } from 'node:cluster';
import type { RunningTelemetry } from './telemetry/index.ts';
import { metricsSettingsFromEnv } from './telemetry/settings.ts';

/** In the primary: the metrics door, when metrics are on, answering with every worker's metrics added up (prom-client's cluster registry). */
export async function primaryTelemetry(env: NodeJS.ProcessEnv): Promise<RunningTelemetry | null> {
  const metrics = metricsSettingsFromEnv(env);
  if (!metrics) return null;
  const { startTelemetry } = await import('./telemetry/index.ts');
  return startTelemetry({ metrics, tracing: false }, 'primary');
}

/** How soon a worker that died is started again (a worker dying at once on start is not restarted faster than this). */
const RESTART_DELAY_MS = 500;

export interface ClusterOptions {
  processes: number;
  /** Told once, when every worker listens: the shared address. */
  onListening: (address: string) => void;
  /** Told when a worker dies and is started again. */
  onRestart: (pid: number | undefined, code: number | null, signal: string | null) => void;
}

/** The message a worker sends its primary once it listens. */
interface Listening {
  legalworkListening: string;
}

/** In a worker: tells the primary the address it listens on. */
export function announceListening(address: string): void {
  process.send?.({ legalworkListening: address } satisfies Listening);
}

export const isClusterWorker = () => cluster.isWorker;

/** In the primary: forks the workers, keeps N running, passes a stop on, and resolves when all have stopped. */
export function runPrimary(options: ClusterOptions): Promise<void> {
  let stopping = false;
  let announced = false;
  const listening = new Set<Worker>();
  // Counted here: `cluster.workers` drops a worker only once it has both exited and disconnected, in either order.
  const running = new Set<Worker>();
  const fork = () => {
    const worker = cluster.fork();
    running.add(worker);
    worker.on('message', (message: Partial<Listening>) => {
      if (typeof message?.legalworkListening !== 'string') return;
      listening.add(worker);
      if (!announced && listening.size === options.processes) {
        announced = true;
        options.onListening(message.legalworkListening);
      }
    });
  };
  return new Promise((resolve) => {
    cluster.on('exit', (worker, code, signal) => {
      listening.delete(worker);
      running.delete(worker);
      if (stopping) {
        if (running.size === 0) resolve();
        return;
      }
      options.onRestart(worker.process.pid, code, signal);
      setTimeout(() => stopping || fork(), RESTART_DELAY_MS);
    });
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      if (running.size === 0) resolve();
      for (const worker of running) worker.process.kill(signal);
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    for (let i = 0; i < options.processes; i++) fork();
  });
}
