/**
 * How the fuzzer talks to the service: node:http over a keep-alive agent
 * (a fixed number of sockets), which sends any header value and path Node
 * allows (latin1 bytes included), any method, chunked or sized bodies, and
 * duplicated headers; and bare TCP sockets for what no HTTP client writes
 * (control characters in headers, broken lengths, garbage request lines).
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

export interface FuzzRequest {
  /** The operation the request was generated from (`POST /matters`). */
  op: string;
  method: string;
  /** Path and query, exactly as sent. */
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
  /** Send the body chunked (no Content-Length). */
  chunked?: boolean;
  /** The exact bytes to write on a fresh socket instead (HTTP-level malformations). */
  raw?: Buffer;
  /** What was done to the valid request (empty: it is valid by the contract). */
  mutations: string[];
  /** The tracked tail it addresses (`ws:<id>`, `key:A`…), if any. */
  tail?: string;
  /** The method or the path was mutated: it may land on another route, or none. */
  offRoute?: boolean;
  /** Hold an event stream open only long enough to read its status. */
  stream?: boolean;
  /** The contract refuses this request whatever the state (malformed JSON, an unknown id, a bad key…): a 2xx is a failure. */
  mustRefuse?: boolean;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  ms: number;
  /** A transport failure (no answer), e.g. ECONNRESET. */
  error?: string;
  /** The request went out on a kept-alive connection. */
  reused?: boolean;
  /** It was sent again after this failure on a reused connection. */
  retried?: string;
  /** The request sent before it on the same kept-alive connection (for failures that may be the previous one's). */
  previous?: string;
}

/** The last request each kept-alive connection carried. */
const lastOnSocket = new WeakMap<object, string>();

export function agentOf(sockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets, keepAliveMsecs: 1000 });
}

const MAX_READ = 2 * 1024 * 1024;

/** Sends one request on the agent; resolves with the answer or a transport error (never rejects). */
export async function send(base: URL, agent: Agent, req: FuzzRequest, timeoutMs = 20_000): Promise<Answer> {
  if (req.raw) return sendRaw(base, req.raw, timeoutMs);
  const first = await sendOnce(base, agent, req, timeoutMs);
  // A kept-alive connection the server closed as this request went out on it: what every HTTP client does is send it again, on a new connection.
  if (first.reused && first.error && /ECONNRESET|EPIPE|socket hang up/.test(first.error)) {
    const again = await sendOnce(base, agent, req, timeoutMs);
    return { ...again, retried: first.error };
  }
  return first;
}

function sendOnce(base: URL, agent: Agent, req: FuzzRequest, timeoutMs: number): Promise<Answer> {
  const started = performance.now();
  return new Promise<Answer>((resolve) => {
    let done = false;
    const finish = (a: Omit<Answer, 'ms'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...a, ms: performance.now() - started });
    };
    const headers: Record<string, string | string[]> = { ...req.headers };
    if (req.body && !req.chunked && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) headers['content-length'] = String(req.body.length);
    // Said outright: Node's client chunks a body by itself only for methods that usually carry one (not GET, HEAD, OPTIONS, DELETE).
    if (req.body && req.chunked) headers['transfer-encoding'] = 'chunked';
    let r: ReturnType<typeof httpRequest>;
    try {
      r = httpRequest({ host: base.hostname, port: base.port, method: req.method, path: req.path, headers, agent, setHost: true });
    } catch (error) {
      // Node refuses to write it (an invalid header or path): the fuzzer's own mistake, reported as such.
      resolve({ status: 0, headers: {}, body: Buffer.alloc(0), ms: 0, error: `client refused to send: ${(error as Error).message}` });
      return;
    }
    const timer = setTimeout(() => {
      r.destroy(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    let previous: string | undefined;
    r.on('socket', (socket) => {
      previous = lastOnSocket.get(socket);
      lastOnSocket.set(socket, `${req.method} ${req.path.slice(0, 200)} [${req.op}; ${req.mutations.join(', ') || 'valid'}; body ${req.body?.length ?? 0} bytes${req.chunked ? ', chunked' : ''}]`);
    });
    r.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      if (req.stream && String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        // An open event stream: its status and headers are the answer; close it.
        res.once('data', () => undefined);
        finish({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.alloc(0) });
        res.destroy();
        r.destroy();
        return;
      }
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_READ) chunks.push(c);
      });
      res.on('end', () => finish({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ...(previous ? { previous } : {}) }));
      res.on('error', (e) => finish({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), error: `response: ${e.message}` }));
    });
    r.on('error', (e: NodeJS.ErrnoException) => finish({ status: 0, headers: {}, body: Buffer.alloc(0), error: `${e.code ?? ''} ${e.message}`.trim(), reused: r.reusedSocket }));
    if (req.body) r.end(req.body);
    else r.end();
  });
}

/** Writes `bytes` on a fresh socket and reads one answer (status line, headers, Content-Length body), or what came before the close. */
export function sendRaw(base: URL, bytes: Buffer, timeoutMs = 20_000): Promise<Answer> {
  const started = performance.now();
  return new Promise<Answer>((resolve) => {
    const socket = connect(Number(base.port), base.hostname);
    let received = Buffer.alloc(0);
    let done = false;
    const finish = (error?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseAnswer(received, head), ms: performance.now() - started, ...(error && received.length === 0 ? { error } : {}) });
    };
    const timer = setTimeout(() => finish(`no answer within ${timeoutMs} ms`), timeoutMs);
    socket.on('error', (e: NodeJS.ErrnoException) => finish(`${e.code ?? ''} ${e.message}`.trim()));
    socket.on('close', () => finish('closed without an answer'));
    // The answer to a HEAD has no body, whatever its Content-Length says.
    const head = rawMethod(bytes) === 'HEAD';
    socket.on('data', (c: Buffer) => {
      received = Buffer.concat([received, c]);
      const parsed = parseAnswer(received, head);
      if (parsed.complete) finish();
    });
    socket.on('connect', () => socket.write(bytes));
  });
}

/** The method of the request in `bytes`, after the empty lines a server skips before a request line (RFC 9112, 2.2); undefined without one. */
export function rawMethod(bytes: Buffer): string | undefined {
  return /^(?:\r?\n)*([^\s]+) /.exec(bytes.subarray(0, 64).toString('latin1'))?.[1];
}

/** Parses the first HTTP/1.1 answer in `buf`; `complete` once its whole body (by Content-Length) is in, or at its headers when it has none. */
export function parseAnswer(buf: Buffer, toHead = false): { status: number; headers: IncomingHttpHeaders; body: Buffer; complete: boolean } {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, headers: {}, body: Buffer.alloc(0), complete: false };
  const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0])?.[1] ?? 0);
  const headers: IncomingHttpHeaders = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const rest = buf.subarray(end + 4);
  // A 304 (like a 204, and any answer to HEAD) ends with its headers (RFC 9112, 6.3): bytes after it are the
  // next answer on the connection (a 408 for a body that never came whole), not its body.
  if (toHead || status === 304 || status === 204) return { status, headers, body: Buffer.alloc(0), complete: true };
  const length = headers['content-length'] !== undefined ? Number(headers['content-length']) : undefined;
  if (length !== undefined) return { status, headers, body: rest.subarray(0, length), complete: rest.length >= length };
  // Chunked or close-delimited: good enough for a refusal, which is small.
  if (headers['transfer-encoding'] === 'chunked') {
    const body = dechunk(rest);
    return { status, headers, body: body ?? Buffer.alloc(0), complete: body !== undefined };
  }
  return { status, headers, body: rest, complete: false };
}

function dechunk(buf: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) return undefined;
    const size = parseInt(buf.subarray(at, eol).toString('latin1'), 16);
    if (Number.isNaN(size)) return undefined;
    if (size === 0) return Buffer.concat(parts);
    if (buf.length < eol + 2 + size + 2) return undefined;
    parts.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/** A small JSON client for the fixtures and the tail reads (fails loudly: these are not fuzzed). */
export async function json(base: URL, agent: Agent, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: IncomingHttpHeaders }> {
  const a = await send(base, agent, {
    op: 'fixture',
    method,
    path,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
    mutations: [],
  });
  if (a.error) throw new Error(`${method} ${path}: ${a.error}`);
  let parsed: any;
  try {
    parsed = JSON.parse(a.body.toString('utf8'));
  } catch {
    parsed = a.body.toString('utf8');
  }
  return { status: a.status, body: parsed, headers: a.headers };
}
