/**
 * The published contract suite: its document and pin, its coverage of every
 * keyless GET door, the runner against a real listening service, and the CLI.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCommand } from '../src/cli/verify.ts';
import { check, runSuite } from '../src/verify/run-suite.ts';
import { SUITE_BYTES, SUITE_PIN, suiteDocument, type Requirement } from '../src/verify/suite.ts';
import { call, listeningApp, topLevelHeaders, type TestApp } from './helpers/app.ts';
import { routerRoutes } from './helpers/routes.ts';

let app: TestApp;
let url: string;
beforeAll(async () => {
  ({ app, url } = await listeningApp());
});
afterAll(async () => app.close());

const sink = () => {
  let text = '';
  const stream = new Writable({ write: (chunk, _enc, done) => ((text += chunk), done()) });
  return { stream, text: () => text };
};

describe('GET /verify/suite.json and GET /verify', () => {
  it('serves the suite: {$type: Suite, name, version, requirements[]} of declarative GET rows', async () => {
    const res = await call(app, 'GET', '/verify/suite.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ $type: 'Suite', name: 'legalwork-contract', version: 1 });
    const ids = new Set<string>();
    for (const row of res.body.requirements as Requirement[]) {
      expect(row.method).toBe('GET');
      expect(row.path).toMatch(/^\//);
      expect(Number.isInteger(row.status)).toBe(true);
      expect(row.expect.contentType).toEqual(expect.any(String));
      expect(ids.has(row.id), row.id).toBe(false);
      ids.add(row.id);
    }
  });

  it('pins the exact bytes served: the pin is their sha256, printed on the page with the suite name', async () => {
    const res = await fetch(`${url}/verify/suite.json`);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.equals(SUITE_BYTES)).toBe(true);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(SUITE_PIN);
    const page = await call(app, 'GET', '/verify');
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.raw).toContain('legalwork-contract@1');
    expect(page.raw).toContain(SUITE_PIN);
  });

  it('has at least one row over every keyless GET door the service serves', () => {
    const rows = suiteDocument().requirements.map((r) => r.path.split('?')[0]);
    const doors = routerRoutes(app).filter((r) => r.method === 'GET');
    const uncovered = doors.filter((door) => {
      const re = new RegExp(`^${door.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}$`);
      return !rows.some((p) => re.test(p));
    });
    expect(uncovered).toEqual([]);
  });
});

describe('runSuite against a running service', () => {
  it('every row holds on an empty service, and on a busy one', async () => {
    const empty = await runSuite(url);
    expect(empty.results.filter((r) => !r.ok)).toEqual([]);
    expect(empty).toMatchObject({ ok: true, pagePinned: true, failed: 0, suite: { id: 'legalwork-contract@1', pin: SUITE_PIN } });
    // Busy: Matters, Assets and keys at the top level, and a workspace.
    const auth = await topLevelHeaders(app);
    await call(app, 'POST', '/orders', { mint: 'a', offer: 'b', title: 'Map', inventor: 'Ada', listFeeUsd: 199 }, auth);
    await call(app, 'POST', '/workspaces');
    const busy = await runSuite(`${url}/`);
    expect(busy.results.filter((r) => !r.ok)).toEqual([]);
  });

  it('reports what does not hold, row by row', () => {
    const row: Requirement = { id: 'x', method: 'GET', path: '/x', status: 200, expect: { contentType: 'application/json', type: 'OK', has: ['a.b'], equals: { 'c.0': 1 } }, why: 'test' };
    expect(check(row, 200, 'application/json', JSON.stringify({ type: 'OK', a: { b: null }, c: [1] }))).toEqual([]);
    expect(check(row, 404, 'text/html', '{"type":"EMPTY","c":[2]}')).toEqual(['status 404, expected 200', 'content-type "text/html", expected application/json', 'type "EMPTY", expected OK', 'a.b is missing', 'c.0 is 2, expected 1']);
    expect(check(row, 200, 'application/json', 'not json')).toEqual(['body is not JSON']);
    expect(check({ ...row, expect: { contentType: 'text/plain', contains: ['# legalwork'] } }, 200, 'text/plain; charset=utf-8', 'hello')).toEqual(['body does not contain "# legalwork"']);
  });

  it('fails a service that serves the suite but breaks its rows, or does not print the pin', async () => {
    // A service that publishes the suite and answers everything else 500.
    const impostor: Server = createServer((req, res) => {
      if (req.url === '/verify/suite.json') return res.writeHead(200, { 'content-type': 'application/json' }).end(SUITE_BYTES);
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"down"}');
    });
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    const port = (impostor.address() as { port: number }).port;
    try {
      const run = await runSuite(`http://127.0.0.1:${port}`);
      expect(run.ok).toBe(false);
      expect(run.pagePinned).toBe(false);
      expect(run.failed).toBe(suiteDocument().requirements.length - 1);
    } finally {
      await new Promise((resolve) => impostor.close(resolve));
    }
  });
});

describe('legalwork verify --url', () => {
  it('prints what holds and exits 0 when everything does', async () => {
    const out = sink();
    const err = sink();
    const code = await verifyCommand(['--url', url], { stdout: out.stream, stderr: err.stream });
    expect(err.text()).toBe('');
    expect(code).toBe(0);
    expect(out.text()).toContain(`pin ${SUITE_PIN} (the suite this CLI knows)`);
    expect(out.text()).toMatch(/holds {2}GET \/verify names legalwork-contract@1/);
    const n = suiteDocument().requirements.length;
    expect(out.text()).toContain(`${n} of ${n} requirements hold`);
  });

  it('emits the run as JSON, and exits 1 when the required pin differs', async () => {
    const out = sink();
    expect(await verifyCommand(['--url', url, '--json'], { stdout: out.stream, stderr: sink().stream })).toBe(0);
    expect(JSON.parse(out.text())).toMatchObject({ ok: true, pinHolds: true, suite: { pin: SUITE_PIN } });
    const other = sink();
    expect(await verifyCommand(['--url', url, '--pin', '0'.repeat(64)], { stdout: other.stream, stderr: sink().stream })).toBe(1);
    expect(other.text()).toContain(`FAILS  the published pin is ${'0'.repeat(64)}`);
  });

  it('exits 2 on a bad command line and 3 when nothing answers', async () => {
    const err = sink();
    expect(await verifyCommand(['--nope'], { stdout: sink().stream, stderr: err.stream })).toBe(2);
    expect(err.text()).toMatch(/usage: legalwork verify/);
    expect(await verifyCommand(['--url', 'not a url'], { stdout: sink().stream, stderr: sink().stream })).toBe(2);
    expect(await verifyCommand(['--url', url, '--pin', 'xyz'], { stdout: sink().stream, stderr: sink().stream })).toBe(2);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = sink();
    expect(await verifyCommand(['--url', `http://127.0.0.1:${port}`], { stdout: sink().stream, stderr: down.stream })).toBe(3);
    expect(down.text()).toMatch(/no answer/);
  });

  it('uses LEGALWORK_URL when no --url is given', async () => {
    expect(await verifyCommand([], { stdout: sink().stream, stderr: sink().stream }, { LEGALWORK_URL: url })).toBe(0);
  });
});
