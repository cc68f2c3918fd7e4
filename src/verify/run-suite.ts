/**
 * Runs a published contract suite against a running service: fetches the
 * suite the service publishes, computes its pin from the exact bytes served,
 * checks the /verify page prints that pin, then checks every declarative row
 * against the live service, through the CLI's one service client (keyless:
 * the suite is what anyone may check). No state.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Requirement, SuiteDocument } from './suite.ts';
import { ServiceClient, ServiceUnreachable } from '../client/service-client.ts';
import { sha256Hex } from '../domain/hash.ts';

export interface RowResult {
  id: string;
  method: string;
  path: string;
  ok: boolean;
  status: number | null;
  problems: string[];
}

export interface SuiteRun {
  baseUrl: string;
  suite: { name: string; version: number; id: string; pin: string };
  /** The /verify page names the suite and prints the pin of the bytes served. */
  pagePinned: boolean;
  results: RowResult[];
  passed: number;
  failed: number;
  ok: boolean;
}

/** Per-request timeout in milliseconds: the suite's rows are cheap reads. */
const TIMEOUT_MS = 10_000;

/** The value at a dotted path (`a.0.b`), or undefined. */
function at(value: unknown, path: string): unknown {
  let cur: unknown = value;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** Every problem the answer has against the row; empty when it holds. */
export function check(row: Requirement, status: number, contentType: string, body: string): string[] {
  const problems: string[] = [];
  const e = row.expect;
  if (status !== row.status) problems.push(`status ${status}, expected ${row.status}`);
  if (!contentType.toLowerCase().startsWith(e.contentType)) problems.push(`content-type "${contentType}", expected ${e.contentType}`);
  if (status === 304 && body !== '') problems.push('a 304 with a body');
  for (const needle of e.contains ?? []) if (!body.includes(needle)) problems.push(`body does not contain ${JSON.stringify(needle)}`);
  if (e.type === undefined && !e.has && !e.equals) return problems;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return [...problems, 'body is not JSON'];
  }
  if (e.type !== undefined) {
    const allowed = Array.isArray(e.type) ? e.type : [e.type];
    const type = at(json, 'type');
    if (!allowed.includes(type as string)) problems.push(`type ${JSON.stringify(type)}, expected ${allowed.join(' or ')}`);
  }
  for (const path of e.has ?? []) if (at(json, path) === undefined) problems.push(`${path} is missing`);
  for (const [path, expected] of Object.entries(e.equals ?? {})) {
    const actual = at(json, path);
    if (!isDeepStrictEqual(actual, expected)) problems.push(`${path} is ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
  }
  return problems;
}

/**
 * A keyless client for `baseUrl`. An absolute address that is not http(s)
 * is one nothing answers at, as `fetch` always had it: unreachable, never a
 * bad command line.
 */
function clientFor(baseUrl: string): ServiceClient {
  try {
    return new ServiceClient({ baseUrl, timeoutMs: TIMEOUT_MS });
  } catch (error) {
    throw new ServiceUnreachable(baseUrl, (error as Error).message);
  }
}

async function get(client: ServiceClient, path: string, headers: Record<string, string>) {
  const { response, bytes } = await client.requestBytes('GET', path, { headers });
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', bytes, text: bytes.toString('utf8') };
}

/** Fetches the published suite; its pin is the sha256 of the exact bytes served. */
async function fetchSuite(client: ServiceClient): Promise<{ suite: SuiteDocument; pin: string }> {
  const res = await get(client, '/verify/suite.json', { accept: 'application/json' });
  if (res.status !== 200) throw new Error(`GET /verify/suite.json answered ${res.status}`);
  const suite = JSON.parse(res.text) as SuiteDocument;
  if (suite?.$type !== 'Suite' || typeof suite.name !== 'string' || !Array.isArray(suite.requirements)) throw new Error('GET /verify/suite.json is not a Suite document');
  return { suite, pin: sha256Hex(res.bytes) };
}

/**
 * Runs the suite `baseUrl` publishes against it. Rows run one after another
 * so a small service is never flooded.
 */
export async function runSuite(baseUrl: string): Promise<SuiteRun> {
  const client = clientFor(baseUrl);
  const { suite, pin } = await fetchSuite(client);
  const id = `${suite.name}@${suite.version}`;
  let pagePinned = false;
  try {
    const page = await get(client, '/verify', { accept: 'text/html' });
    pagePinned = page.status === 200 && page.text.includes(id) && page.text.includes(pin);
  } catch {
    pagePinned = false;
  }
  const results: RowResult[] = [];
  for (const row of suite.requirements) {
    try {
      const res = await get(client, row.path, { accept: row.expect.contentType === 'application/json' ? 'application/json' : '*/*', ...(row.headers ?? {}) });
      const problems = check(row, res.status, res.contentType, res.text);
      results.push({ id: row.id, method: row.method, path: row.path, ok: problems.length === 0, status: res.status, problems });
    } catch (error) {
      results.push({ id: row.id, method: row.method, path: row.path, ok: false, status: null, problems: [`no answer: ${error instanceof ServiceUnreachable ? error.reason : (error as Error).message}`] });
    }
  }
  const passed = results.filter((r) => r.ok).length;
  return { baseUrl, suite: { name: suite.name, version: suite.version, id, pin }, pagePinned, results, passed, failed: results.length - passed, ok: pagePinned && passed === results.length };
}
