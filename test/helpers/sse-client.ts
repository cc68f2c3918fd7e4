/**
 * A minimal EventSource over node:http, for the tests that read the event
 * stream off a real socket: the frames and comments as they arrive, and the
 * connection's fate.
 */
import http from 'node:http';
import { HANG_MS } from './wait.ts';

export interface Frame {
  event?: string;
  id?: string;
  data?: string;
}

/** A minimal EventSource over node:http: frames, comments, and the connection's fate. */
export class SseClient {
  frames: Frame[] = [];
  comments: string[] = [];
  status = 0;
  headers: http.IncomingHttpHeaders = {};
  ended = false;
  res?: http.IncomingMessage;
  private buffer = '';
  private waiters: Array<() => void> = [];
  readonly req: http.ClientRequest;
  readonly opened: Promise<void>;
  readonly closed: Promise<void>;

  constructor(url: string, headers: Record<string, string> = {}, agent?: http.Agent) {
    let open!: () => void;
    let close!: () => void;
    this.opened = new Promise((r) => (open = r));
    this.closed = new Promise((r) => (close = r));
    this.req = http.get(url, { headers: { accept: 'text/event-stream', ...headers }, agent: agent ?? false }, (res) => {
      this.res = res;
      this.status = res.statusCode ?? 0;
      this.headers = res.headers;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => this.feed(chunk));
      res.on('close', () => {
        this.ended = true;
        this.notify();
        close();
      });
      open();
    });
    this.req.on('error', () => {
      this.ended = true;
      this.notify();
      close();
    });
  }

  private feed(chunk: string) {
    this.buffer += chunk;
    let cut;
    while ((cut = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, cut);
      this.buffer = this.buffer.slice(cut + 2);
      const frame: Frame = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
        else if (line.startsWith('event: ')) frame.event = line.slice(7);
        else if (line.startsWith('id: ')) frame.id = line.slice(4);
        else if (line.startsWith('data: ')) frame.data = (frame.data ?? '') + line.slice(6);
      }
      if (frame.data !== undefined) this.frames.push(frame);
    }
    this.notify();
  }

  private notify() {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves once `predicate` holds (checked as each chunk arrives), or fails after `ms`, a hang. */
  async until(predicate: () => boolean, ms = HANG_MS, what = 'condition'): Promise<void> {
    const deadline = Date.now() + ms;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; ${this.frames.length} frames, ended=${this.ended}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  ids(): number[] {
    return this.frames.map((f) => Number(f.id));
  }

  close() {
    this.req.destroy();
  }
}
