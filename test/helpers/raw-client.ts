/**
 * A client on a bare TCP socket (node:net), for the edge's tests: it writes
 * exactly the bytes it is told to, as slowly as it is told to, and records
 * what came back and when the service closed the connection.
 */
import { connect, type Socket } from 'node:net';

export class RawClient {
  readonly socket: Socket;
  /** Everything the service sent, as text. */
  received = '';
  /**
   * When the connection was asked for and when it closed (performance.now());
   * closedAt is undefined while it is open. Taken from the connect call, not
   * the connect event, so a lifetime measured on a loaded machine can only
   * come out longer than the service's view of it, never shorter.
   */
  openedAt = performance.now();
  closedAt: number | undefined;
  readonly connected: Promise<void>;
  readonly closed: Promise<void>;
  private drip: NodeJS.Timeout | undefined;
  private waiters: Array<() => void> = [];

  constructor(url: string) {
    const { hostname, port } = new URL(url);
    this.socket = connect(Number(port), hostname);
    this.socket.setEncoding('utf8');
    this.socket.on('error', () => undefined);
    this.socket.on('data', (chunk: string) => {
      this.received += chunk;
      this.notify();
    });
    this.connected = new Promise((done) => this.socket.once('connect', () => done()));
    this.closed = new Promise((done) =>
      this.socket.once('close', () => {
        this.closedAt = performance.now();
        this.stopDripping();
        this.notify();
        done();
      }),
    );
  }

  get isClosed(): boolean {
    return this.closedAt !== undefined;
  }

  /** How long the connection stayed open, ms, from the connect call (undefined while it is open). */
  get lifetimeMs(): number | undefined {
    return this.closedAt === undefined ? undefined : this.closedAt - this.openedAt;
  }

  write(text: string): void {
    if (!this.socket.destroyed) this.socket.write(text);
  }

  /** Writes `text` one character every `everyMs`, until it is all sent or the connection closes. */
  dripWrite(text: string, everyMs: number): void {
    let i = 0;
    this.drip = setInterval(() => {
      if (this.socket.destroyed || i >= text.length) return this.stopDripping();
      this.socket.write(text[i++]);
    }, everyMs);
  }

  stopDripping(): void {
    if (this.drip) clearInterval(this.drip);
    this.drip = undefined;
  }

  /** Resolves once `predicate` holds, or fails after `ms`, saying what it waited for. */
  async until(predicate: () => boolean, ms: number, what: string): Promise<void> {
    const deadline = performance.now() + ms;
    while (!predicate()) {
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`timed out after ${ms} ms waiting for ${what}; received ${JSON.stringify(this.received.slice(0, 300))}, closed=${this.isClosed}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** The first HTTP response received: its status, headers (lower-cased) and body (Content-Length framed). */
  response(): { status: number; headers: Record<string, string>; body: string } | undefined {
    const end = this.received.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const [statusLine, ...lines] = this.received.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length'] ?? 0);
    const body = this.received.slice(end + 4, end + 4 + length);
    if (body.length < length) return undefined;
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  }

  destroy(): void {
    this.stopDripping();
    this.socket.destroy();
  }

  private notify() {
    for (const w of this.waiters.splice(0)) w();
  }
}

/** Opens a raw client and waits for its connection. */
export async function rawClient(url: string): Promise<RawClient> {
  const client = new RawClient(url);
  await Promise.race([client.connected, client.closed]);
  return client;
}
