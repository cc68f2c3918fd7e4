/**
 * A webhook receiver on a loopback port, for the webhook tests: it records
 * every delivery (headers and body) and answers each as it is told: a status,
 * `hang` (never answers), or `close` (drops the connection); 200 once told
 * nothing more.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HANG_MS } from './wait.ts';

export type Behaviour = number | 'hang' | 'close';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** What the receiver did with it. */
  answered: Behaviour;
}

export async function receiver(script: Behaviour[] = []) {
  const received: Received[] = [];
  const waiting: Array<{ n: number; done: () => void }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answered = script.shift() ?? 200;
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answered });
      for (const w of waiting.filter((x) => received.length >= x.n)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.done();
      }
      if (answered === 'hang') return;
      if (answered === 'close') return req.socket.destroy();
      res.writeHead(answered, { 'content-type': 'text/plain' }).end(answered >= 300 ? 'x'.repeat(3000) : 'ok');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    script,
    /** Resolves once `n` deliveries have arrived (fails after `timeoutMs`, a hang). */
    until(n: number, timeoutMs = HANG_MS): Promise<void> {
      if (received.length >= n) return Promise.resolve();
      return new Promise((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`only ${received.length} of ${n} deliveries arrived within ${timeoutMs} ms`)), timeoutMs);
        waiting.push({ n, done: () => (clearTimeout(timer), ok()) });
      });
    },
    close: () => new Promise<void>((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    }),
  };
}
