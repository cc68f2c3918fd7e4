/** `legalwork serve`: the HTTP service itself (what `npm start` runs). */
import { optionalInt, optionalString, type Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';

const serve: Command = {
  path: ['serve'],
  summary: 'Run the legalwork HTTP service.',
  description: [
    'Starts the service on the embedded journal. Environment: PORT (default 3000),',
    'HOST (default 127.0.0.1), LEGALWORK_DATA (journal directory, default ./data),',
    'LEGALWORK_CLOCK, LEGALWORK_SANDBOX_TTL, LEGALWORK_LOG=off. The flags override',
    'them. SIGTERM or SIGINT drains and exits cleanly.',
  ].join('\n'),
  options: {
    port: { type: 'string', value: '<port>', description: 'the port to listen on' },
    host: { type: 'string', value: '<host>', description: 'the address to listen on' },
    data: { type: 'string', value: '<dir>', description: 'the journal directory' },
  },
  async run(ctx) {
    const port = optionalInt(ctx.values, 'port', { min: 0, max: 65535 });
    const host = optionalString(ctx.values, 'host');
    const dataDir = optionalString(ctx.values, 'data');
    // Loaded only here, so the other commands never load the service.
    const { start } = await import('../../server.ts');
    const { address } = await start({ ...(port !== undefined ? { port } : {}), ...(host ? { host } : {}), ...(dataDir ? { dataDir } : {}) });
    ctx.out.progress(`listening on ${address}`);
    return EXIT.ok;
  },
};

export const serveCommands = [serve];
