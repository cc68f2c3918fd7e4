/** `legalwork serve`: the HTTP service itself (what `npm start` runs). */
import { optionalInt, optionalString, UsageError, type Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';

const serve: Command = {
  path: ['serve'],
  summary: 'Run the legalwork HTTP service.',
  description: [
    'Starts the service on the embedded journal. Environment: PORT (default 3000),',
    'HOST (default 127.0.0.1), LEGALWORK_DATA (journal directory, default ./data),',
    'LEGALWORK_CLOCK, LEGALWORK_SANDBOX_TTL, LEGALWORK_LOG=off. The flags override',
    'them. SIGTERM or SIGINT drains and exits cleanly.',
    'With LEGALWORK_DATABASE_URL (the PostgreSQL journal), --processes N runs N',
    'service processes behind the one address (Node\'s cluster module); a process',
    'that dies is started again.',
    'LEGALWORK_METRICS_ADDRESS (host:port) serves Prometheus metrics there, behind',
    'LEGALWORK_METRICS_TOKEN; OTEL_EXPORTER_OTLP_ENDPOINT exports OpenTelemetry',
    'traces (docs/operations.md).',
  ].join('\n'),
  options: {
    port: { type: 'string', value: '<port>', description: 'the port to listen on' },
    host: { type: 'string', value: '<host>', description: 'the address to listen on' },
    data: { type: 'string', value: '<dir>', description: 'the journal directory' },
    processes: { type: 'string', value: '<n>', description: 'service processes behind the one address (PostgreSQL journal only; default 1)' },
  },
  async run(ctx) {
    const port = optionalInt(ctx.values, 'port', { min: 0, max: 65535 });
    const host = optionalString(ctx.values, 'host');
    const dataDir = optionalString(ctx.values, 'data');
    const processes = optionalInt(ctx.values, 'processes', { min: 1, max: 64 }) ?? 1;
    // Loaded only here, so the other commands never load the service.
    const { isClusterWorker, runPrimary, announceListening, primaryTelemetry } = await import('../../cluster.ts');
    if (processes > 1 && !isClusterWorker()) {
      if (!ctx.env.LEGALWORK_DATABASE_URL) throw new UsageError('--processes needs the PostgreSQL journal, which several processes share (set LEGALWORK_DATABASE_URL): the embedded journal is one process\'s file');
      // The primary serves the metrics door alone, every worker's metrics added up; it runs no service, so it traces nothing.
      const telemetry = await primaryTelemetry(ctx.env);
      if (telemetry?.metricsAddress) ctx.out.progress(`metrics on ${telemetry.metricsAddress} (every process's, added up)`);
      await runPrimary({
        processes,
        onListening: (address) => ctx.out.progress(`listening on ${address} (${processes} processes)`),
        onRestart: (pid, code, signal) => ctx.out.progress(`process ${pid} ended (${signal ?? `exit ${code}`}): starting another`),
      });
      await telemetry?.stop();
      return EXIT.ok;
    }
    const { start } = await import('../../server.ts');
    const { address, metricsAddress } = await start({ ...(port !== undefined ? { port } : {}), ...(host ? { host } : {}), ...(dataDir ? { dataDir } : {}), clusterWorker: isClusterWorker() });
    if (isClusterWorker()) announceListening(address);
    else {
      ctx.out.progress(`listening on ${address}`);
      if (metricsAddress) ctx.out.progress(`metrics on ${metricsAddress}`);
    }
    return EXIT.ok;
  },
};

export const serveCommands = [serve];
