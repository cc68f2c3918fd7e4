/**
 * What every answer must be, whatever was sent:
 * - never a 5xx, except a 502 the operation declares (the supply network
 *   refused a post);
 * - a 4xx is the uniform refusal: JSON (`application/json`), an object valid
 *   by the contract's `Refusal` component, with a worded `error`, a `code`
 *   from the refusal catalog whose status is the one answered, and a `fix`;
 *   its status and code are among those the operation declares (a request
 *   whose method or path was mutated may land on another operation, or on
 *   none: 404 ROUTE_NOT_FOUND, 405 METHOD_NOT_ALLOWED);
 * - every answer but HEAD's carries a `request-id`;
 * - a request the contract refuses whatever the state (`mustRefuse`) is not
 *   answered 2xx (nor 304);
 * - a 304 answers an operation that declares it, to a request that sent
 *   If-None-Match, with no body and its ETag;
 * - an answer arrives (no reset, no hang).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { REFUSALS } from '../../../src/domain/refusals.ts';
import type { OpenApiDoc, Operation } from './contract.ts';
import { anyDeclared, matcher } from './contract.ts';
import type { Answer, FuzzRequest } from './http.ts';

export interface Verdict {
  problems: string[];
  /** The parsed JSON body, when there is one. */
  json?: unknown;
}

export class Oracle {
  private readonly validateRefusal: (v: unknown) => boolean;
  private readonly refusalErrors: () => unknown;
  private readonly byKey: Map<string, Operation>;
  private readonly match: ReturnType<typeof matcher>;
  private readonly declaredAnywhere: Map<number, Set<string>>;

  constructor(
    doc: OpenApiDoc,
    ops: Operation[],
  ) {
    const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
    ajv.addSchema(doc as object, 'openapi');
    const v = ajv.getSchema('openapi#/components/schemas/Refusal');
    if (!v) throw new Error('the contract has no Refusal component');
    this.validateRefusal = (x) => v(x) as boolean;
    this.refusalErrors = () => v.errors;
    this.byKey = new Map(ops.map((o) => [o.key, o]));
    this.match = matcher(ops);
    this.declaredAnywhere = anyDeclared(ops);
  }

  judge(req: FuzzRequest, a: Answer): Verdict {
    const problems: string[] = [];
    if (a.error) {
      problems.push(`no answer: ${a.error}`);
      return { problems };
    }
    const status = a.status;
    const path = req.path.split('?')[0];
    // The operation that answered: the generated one, unless the method or the path was mutated away from it.
    const op = req.offRoute ? this.match(req.method, path) : this.byKey.get(req.op);
    const isHead = req.method === 'HEAD';
    let json: unknown;
    const media = String(a.headers['content-type'] ?? '');
    if (a.body.length && media.startsWith('application/json')) {
      try {
        json = JSON.parse(a.body.toString('utf8'));
      } catch {
        problems.push('the body says application/json but is not JSON');
      }
    }

    if (status >= 500) {
      if (!(status === 502 && op?.statuses.has(502))) problems.push(`${status}: a server error`);
    }
    if (!a.headers['request-id'] && status !== 408) problems.push('no request-id header');

    if (status >= 400 && status < 500 && !isHead) {
      if (!media.startsWith('application/json')) problems.push(`a refusal answered as ${media || 'no content type'}, not application/json`);
      else if (json !== undefined) {
        const body = json as Record<string, unknown>;
        if (typeof body !== 'object' || body === null || Array.isArray(body)) problems.push('the refusal body is not an object');
        else {
          if (!this.validateRefusal(body)) problems.push(`the refusal body breaks the Refusal schema: ${JSON.stringify(this.refusalErrors()).slice(0, 300)}`);
          if (typeof body.error !== 'string' || body.error.trim().length < 3) problems.push('the refusal has no worded error');
          if (typeof body.fix !== 'string' || body.fix.trim().length < 3) problems.push('the refusal has no fix');
          const code = body.code;
          const entry = typeof code === 'string' ? (REFUSALS as Record<string, { status: number }>)[code] : undefined;
          if (!entry) problems.push(`the refusal code ${JSON.stringify(code)} is not in the catalog`);
          else if (entry.status !== status) problems.push(`${code} is a ${entry.status} in the catalog, answered ${status}`);
          const routeMiss = (status === 404 && code === 'ROUTE_NOT_FOUND') || (status === 405 && code === 'METHOD_NOT_ALLOWED');
          if (routeMiss) {
            if (!req.offRoute) problems.push(`${code} for a request on its documented route`);
          } else if (op) {
            const declared = op.codes.get(status);
            if (!op.statuses.has(status)) problems.push(`${status} is not declared by ${op.key}`);
            else if (!declared || !declared.has(String(code))) problems.push(`${code} is not declared by ${op.key} for ${status} (declared: ${[...(declared ?? [])].join(', ')})`);
          } else if (!this.declaredAnywhere.get(status)?.has(String(code))) problems.push(`${code} (${status}) is declared by no operation`);
        }
      } else problems.push('a refusal with an empty body');
    } else if (status >= 200 && status < 300) {
      if (req.mustRefuse) problems.push(`${status}: accepted a request the contract refuses (${req.mutations.join(', ')})`);
      if (op && !req.offRoute && !op.statuses.has(status)) problems.push(`${status} is not declared by ${op.key}`);
    } else if (status === 304) {
      // A conditional read whose If-None-Match matched (`src/http/etag.ts`): declared by its operation, no body, its ETag repeated.
      if (req.mustRefuse) problems.push(`304: accepted a request the contract refuses (${req.mutations.join(', ')})`);
      if (!req.raw && !Object.keys(req.headers).some((name) => name.toLowerCase() === 'if-none-match')) problems.push('304 to a request that sent no If-None-Match');
      if (op && !req.offRoute && !op.statuses.has(304)) problems.push(`304 is not declared by ${op.key}`);
      if (a.body.length) problems.push('a 304 with a body');
      if (!a.headers.etag) problems.push('a 304 without its ETag');
    } else if (status < 200 || (status >= 300 && status < 400)) {
      problems.push(`unexpected status ${status}`);
    }
    return { problems, json };
  }
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

/** The request and the answer, as a failure message shows them (truncated). */
export function describe(req: FuzzRequest, a: Answer | undefined, problems: string[] = []): string {
  const headers = Object.entries(req.headers)
    .map(([k, v]) => `  ${k}: ${cut(JSON.stringify(v), 160)}`)
    .join('\n');
  const body = req.raw ? cut(JSON.stringify(req.raw.toString('latin1')), 600) : req.body ? cut(JSON.stringify(req.body.toString('utf8')), 600) : '(none)';
  const answer = a
    ? a.error
      ? `  error: ${a.error}`
      : `  ${a.status} ${cut(JSON.stringify(Object.fromEntries(Object.entries(a.headers).filter(([k]) => ['content-type', 'request-id', 'allow', 'content-length', 'connection'].includes(k)))), 300)}\n  ${cut(JSON.stringify(a.body.toString('utf8')), 600)}`
    : '  (none)';
  return [
    ...problems.map((p) => `✗ ${p}`),
    `request (${req.op}; mutations: ${req.mutations.join(', ') || 'none: valid by the contract'}${req.chunked ? '; chunked' : ''}):`,
    `  ${req.method} ${cut(req.path, 300)}`,
    headers,
    `  body: ${body}`,
    'answer:',
    answer,
    ...(a?.previous ? [`  (the connection's previous request: ${a.previous})`] : []),
  ].join('\n');
}
