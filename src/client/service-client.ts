/**
 * The one HTTP client of the CLI and the MCP server. It speaks to a running
 * legalwork service with Node's built-in `fetch`, and sorts every answer into
 * three kinds a caller must tell apart: an answer (2xx), a refusal (the
 * service answered 4xx or 5xx with a worded body), and a failure to reach the
 * service at all (no answer: connection refused, DNS, timeout).
 */

import { randomUUID } from 'node:crypto';
import type { paths } from './contract.gen.ts';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface ClientOptions {
  /** The service's base address; a trailing slash is ignored. */
  baseUrl?: string;
  /** An API key, sent as `Authorization: Bearer <key>` on keyed requests. */
  key?: string;
  /** How long one request may take before it counts as unreachable. */
  timeoutMs?: number;
  /**
   * The Idempotency-Key this client's writes send (the CLI's
   * `--idempotency-key`, for a command that makes one write); unset, each
   * write sends a fresh one.
   */
  idempotencyKey?: string;
}

export interface RequestOptions {
  /** A JSON body. */
  body?: unknown;
  /** A form body (`application/x-www-form-urlencoded`), for the doors that take form fields. */
  form?: Record<string, string | number | undefined>;
  /** Query parameters; `undefined` values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** Send no key even when one is configured (the keyless reads). */
  keyless?: boolean;
  headers?: Record<string, string>;
}

/**
 * What the service answered. `body` is parsed JSON, or the text when the
 * answer is not JSON; `ok` (a 2xx) tells which of the two body types it is.
 * A request named by its route types them from the contract (`RouteAnswer`).
 */
export type ServiceAnswer<Ok = unknown, Refused = unknown> = Answered<true, Ok> | Answered<false, Refused>;

interface Answered<Ok extends boolean, Body> {
  status: number;
  ok: Ok;
  body: Body;
  contentType: string;
}

/*
 * The contract's types. A request named by its route and method,
 * `request<'/matters/{id}/advance', 'post'>('POST', path, options)`, is typed
 * from `contract.gen.ts`, which openapi-typescript generates from the served
 * contract (`npm run contract:types`): the path must fit the route, the body
 * and query are the operation's, and the answer's body is what the operation
 * declares, its 2xx bodies apart from the rest. Only routes and methods are
 * named here and at the call sites, never a shape, nor a component name
 * (@fastify/swagger may number them `def-N`), so when a schema changes
 * regenerating is the only step. The client checks none of it at run time:
 * the service validates what it takes, and the contract tests hold what it
 * answers.
 */

/** A route of the contract, as the top level names it: `/matters/{id}/advance`. */
export type Route = keyof paths;
type Verb = 'get' | 'put' | 'post' | 'delete' | 'patch';
/** The methods a route serves, lower case as the contract keys them. */
export type MethodOf<R extends Route> = { [M in Verb]: undefined extends paths[R][M] ? never : M }[Verb];
type Operation<R extends Route, M extends MethodOf<R>> = NonNullable<paths[R][M]>;
type Responses<R extends Route, M extends MethodOf<R>> = Operation<R, M>['responses'];
/** What a response's body is read as: its JSON, the text of another media type, `null` when it has none. */
type BodyOf<T> = T extends { content: infer C } ? ('application/json' extends keyof C ? C['application/json'] : string) : null;
type IsSuccess<S> = `${S & (string | number)}` extends `2${string}` ? true : false;

/** The bodies of an operation's 2xx answers. */
export type Success<R extends Route, M extends MethodOf<R>> = { [S in keyof Responses<R, M>]: IsSuccess<S> extends true ? BodyOf<Responses<R, M>[S]> : never }[keyof Responses<R, M>];
/** The bodies of every other answer it declares: its refusals and failures. */
export type Refusal<R extends Route, M extends MethodOf<R>> = { [S in keyof Responses<R, M>]: IsSuccess<S> extends true ? never : BodyOf<Responses<R, M>[S]> }[keyof Responses<R, M>];
/** Every body an operation declares, whatever the status. */
export type Answer<R extends Route, M extends MethodOf<R>> = Success<R, M> | Refusal<R, M>;
/** The answer to a request named by its route. */
export type RouteAnswer<R extends Route, M extends MethodOf<R>> = ServiceAnswer<Success<R, M>, Refusal<R, M>>;

type Content<R extends Route, M extends MethodOf<R>> = Operation<R, M> extends { requestBody?: infer B } ? (NonNullable<B> extends { content: infer C } ? C : never) : never;
/** The JSON body an operation takes. */
export type RequestBody<R extends Route, M extends MethodOf<R>> = Content<R, M> extends { 'application/json': infer J } ? J : never;
/** The form body an operation takes (`application/x-www-form-urlencoded`). */
export type FormBody<R extends Route, M extends MethodOf<R>> = Content<R, M> extends { 'application/x-www-form-urlencoded': infer F } ? F : never;
/**
 * An operation's query parameters, each optional: the client leaves out what
 * is `undefined`, and the service refuses, worded, a parameter it needs.
 */
export type Query<R extends Route, M extends MethodOf<R>> = Operation<R, M>['parameters'] extends { query?: infer Q } ? { [K in keyof NonNullable<Q>]?: NonNullable<Q>[K] } : never;

/** The prefix a sandbox workspace mounts a route under (`grainPrefix`): none at the top level. */
export type GrainPrefix = '' | `/workspaces/${string}`;
/** A route's template as a path: each `{param}` any text. */
type Filled<T extends string> = T extends `${infer Head}{${string}}${infer Tail}` ? `${Head}${string}${Filled<Tail>}` : T;
/** The paths a request to a route may take: the route filled in, at the top level or in a workspace. */
export type PathTo<R extends Route> = `${GrainPrefix}${Filled<R>}`;

/** The options of a request named by its route: its body, form and query are the operation's. */
export interface RouteRequestOptions<R extends Route, M extends MethodOf<R>> extends Omit<RequestOptions, 'body' | 'form' | 'query'> {
  body?: RequestBody<R, M>;
  form?: FormBody<R, M>;
  query?: Query<R, M>;
}

/** What to do about a service that does not answer, for the CLI and the MCP tools alike. */
const UNREACHABLE_FIX = 'start the service (`legalwork serve`) or point LEGALWORK_URL (or --url) at one that is running; GET /healthz answers once it is up';

/** The service could not be reached: nothing was answered, so nothing is known to have happened. */
export class ServiceUnreachable extends Error {
  readonly code = 'SERVICE_UNREACHABLE';
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`cannot reach the legalwork service at ${url}: ${reason}`);
  }

  /** As a refusal reads, with the fix an agent or a person acts on. */
  toBody() {
    return { error: this.message, code: this.code, url: this.url, fix: UNREACHABLE_FIX };
  }
}

/** The environment's settings: `LEGALWORK_URL` and `LEGALWORK_KEY`. */
export function clientOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): ClientOptions {
  return {
    baseUrl: env.LEGALWORK_URL || DEFAULT_BASE_URL,
    ...(env.LEGALWORK_KEY ? { key: env.LEGALWORK_KEY } : {}),
  };
}

/** `/workspaces/<id>` for a workspace id, `''` for the top level. */
export function grainPrefix(workspaceId: string | undefined): GrainPrefix {
  return workspaceId ? `/workspaces/${encodeURIComponent(workspaceId)}` : '';
}

/** One path segment, encoded so an id can never climb out of its place in a path. */
export const seg = (value: string) => encodeURIComponent(value);

export class ServiceClient {
  readonly baseUrl: string;
  readonly key?: string;
  readonly timeoutMs: number;
  readonly idempotencyKey?: string;

  constructor(options: ClientOptions = {}) {
    const base = options.baseUrl ?? DEFAULT_BASE_URL;
    let parsed: URL;
    try {
      parsed = new URL(base);
    } catch {
      throw new TypeError(`the service address "${base}" is not a URL (expected e.g. ${DEFAULT_BASE_URL})`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new TypeError(`the service address "${base}" must be http:// or https://`);
    }
    this.baseUrl = base.replace(/\/+$/, '');
    this.key = options.key;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.idempotencyKey = options.idempotencyKey;
  }

  /** The absolute URL of a service path (which must start with `/`). */
  url(path: string, query?: RequestOptions['query']): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) search.set(name, String(value));
    }
    const qs = search.toString();
    return `${this.baseUrl}${path}${qs ? (path.includes('?') ? '&' : '?') + qs : ''}`;
  }

  /** Headers every request carries; the key unless the request is keyless. */
  headers(options: Pick<RequestOptions, 'keyless' | 'headers'> = {}): Record<string, string> {
    return {
      'user-agent': 'legalwork-cli',
      ...(this.key && !options.keyless ? { authorization: `Bearer ${this.key}` } : {}),
      ...options.headers,
    };
  }

  /**
   * One request. Resolves with the service's answer whatever its status;
   * rejects with `ServiceUnreachable` only when there was no answer. Named by
   * its route and method (`request<'/matters', 'post'>('POST', …)`), its path,
   * options and answer are typed from the contract; unnamed, they are not.
   */
  request<R extends Route, M extends MethodOf<R>>(method: Uppercase<M>, path: PathTo<R>, options?: RouteRequestOptions<R, M>): Promise<RouteAnswer<R, M>>;
  request(method: string, path: string, options?: RequestOptions): Promise<ServiceAnswer>;
  async request(method: string, path: string, options: RequestOptions = {}): Promise<ServiceAnswer> {
    const { response, bytes } = await this.requestBytes(method, path, options);
    return answerOf(response, new TextDecoder().decode(bytes));
  }

  /**
   * One request, its body read whole as the exact bytes served (the contract
   * suite pins them); `request` reads them as an answer. Rejects with
   * `ServiceUnreachable` only when there was no answer.
   */
  async requestBytes(method: string, path: string, options: RequestOptions = {}): Promise<{ response: Response; bytes: Buffer }> {
    const url = this.url(path, options.query);
    const headers: Record<string, string> = { accept: 'application/json', ...this.headers(options) };
    let body: string | undefined;
    if (options.form !== undefined) {
      const fields = new URLSearchParams();
      for (const [name, value] of Object.entries(options.form)) if (value !== undefined) fields.set(name, String(value));
      body = fields.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const key = this.idempotencyKeyFor(method, path, headers);
    if (key !== undefined) headers['idempotency-key'] = key;
    // A write under a key is retried once when its connection drops: the service answers the first attempt's answer, or runs it once.
    for (let attempt = 1; ; attempt++) {
      const signal = AbortSignal.timeout(this.timeoutMs);
      try {
        const response = await fetch(url, { method, headers, body, signal, redirect: 'manual' });
        return { response, bytes: Buffer.from(await response.arrayBuffer()) };
      } catch (error) {
        if (attempt === 1 && key !== undefined && !signal.aborted && droppedConnection(error)) continue;
        throw new ServiceUnreachable(this.baseUrl, describeFetchError(error, signal.aborted ? this.timeoutMs : undefined));
      }
    }
  }

  /**
   * The Idempotency-Key a request sends: on a POST or PUT the service can
   * keep one for (it carries the API key, or acts inside a sandbox grain), the
   * client's own or a fresh one; a key the caller set in `headers` stands.
   */
  private idempotencyKeyFor(method: string, path: string, headers: Record<string, string>): string | undefined {
    if (headers['idempotency-key'] !== undefined || (method !== 'POST' && method !== 'PUT')) return undefined;
    if (this.idempotencyKey !== undefined) return this.idempotencyKey;
    return headers.authorization !== undefined || IN_SANDBOX_GRAIN.test(path) ? randomUUID() : undefined;
  }
}

/** A path inside a sandbox grain, where a key is kept per grain. */
const IN_SANDBOX_GRAIN = /^\/(workspaces|tenants|firms)\/[^/?]+\//;

/**
 * The connection dropped after the request may have reached the service (a
 * reset, a socket closed mid-answer): the one failure a retry under the same
 * key resolves. A refused connection or an unknown host never reached it.
 */
function droppedConnection(error: unknown): boolean {
  const code = (error as { cause?: { code?: string } })?.cause?.code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED';
}

/** What a response means, given the text of its body: JSON when it says so (else the text), `null` when empty. */
export function answerOf(response: Response, text: string): ServiceAnswer {
  const contentType = response.headers.get('content-type') ?? '';
  return {
    status: response.status,
    ok: response.status >= 200 && response.status < 300,
    body: parseBody(text, contentType),
    contentType,
  };
}

function parseBody(text: string, contentType: string): unknown {
  if (text === '') return null;
  if (contentType.includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** Words the cause of a failed fetch (undici hides it in `cause`); `timedOutAfterMs` when the caller's timeout ended it. */
export function describeFetchError(error: unknown, timedOutAfterMs?: number): string {
  if (timedOutAfterMs !== undefined) return `no answer within ${timedOutAfterMs} ms`;
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.message) return cause.code && !cause.message.includes(cause.code) ? `${cause.code}: ${cause.message}` : cause.message;
  if (cause?.code) return cause.code;
  return error instanceof Error ? error.message : String(error);
}
