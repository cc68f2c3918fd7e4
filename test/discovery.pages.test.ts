/** The human pages' parts: diagrams read at request time (degrading to a link), and the pages' headers. */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCleanSvg, listDiagrams, readDiagram } from '../src/http/pages/diagrams.ts';
import { docsPage } from '../src/http/pages/docs.ts';
import { renderPage } from '../src/http/pages/layout.ts';
import { call, tempDir, testApp, type TestApp } from './helpers/app.ts';

const SVG = '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>';

describe('diagrams', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when none are generated, each known diagram degrades to a link with a note', async () => {
    const entries = await listDiagrams(join(dir, 'missing'));
    expect(entries.map((e) => [e.name, e.available])).toEqual([
      ['matter', false],
      ['deadline-ladder', false],
      ['enrollment', false],
    ]);
    const html = renderPage(docsPage(entries), 'n');
    expect(html).not.toContain('<img');
    expect(html).toContain('<a href="/docs/diagrams/matter.svg">matter.svg</a>');
    expect(html).toContain('not generated in this build');
  });

  it('shows what is generated, including a machine it does not know yet, and refuses unclean or escaping files', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'matter.svg'), SVG);
    writeFileSync(join(dir, 'new-machine.svg'), SVG);
    writeFileSync(join(dir, 'evil.svg'), '<svg onload="alert(1)"></svg>');
    const entries = await listDiagrams(dir);
    expect(entries.filter((e) => e.available).map((e) => e.name)).toEqual(['matter', 'new-machine']);
    expect(entries.map((e) => e.name)).not.toContain('evil');
    expect((await readDiagram('matter.svg', dir))?.toString()).toBe(SVG);
    expect(await readDiagram('evil.svg', dir)).toBeNull();
    expect(await readDiagram('../package.json', dir)).toBeNull();
    expect(await readDiagram('nope.svg', dir)).toBeNull();
    expect(isCleanSvg('<svg><script>x</script></svg>')).toBe(false);
    expect(isCleanSvg('<svg><a href="javascript:x"/></svg>')).toBe(false);
    expect(isCleanSvg(SVG)).toBe(true);
  });
});

describe('page headers', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await testApp();
  });
  afterAll(async () => app.close());

  it('pages allow only their own nonce-bearing script, and a fresh nonce each time', async () => {
    const first = await call(app, 'GET', '/sandbox');
    const second = await call(app, 'GET', '/sandbox');
    const nonceOf = (csp: string) => /'nonce-([^']+)'/.exec(csp)?.[1];
    const nonce = nonceOf(String(first.headers['content-security-policy']));
    expect(nonce).toBeTruthy();
    expect(first.raw).toContain(`<script nonce="${nonce}">`);
    expect(nonceOf(String(second.headers['content-security-policy']))).not.toBe(nonce);
    expect(first.headers['x-content-type-options']).toBe('nosniff');
  });

  it('serves a generated diagram as an image that can run nothing, and a missing one as a typed EMPTY', async () => {
    const svg = await call(app, 'GET', '/docs/diagrams/matter.svg');
    expect(svg.status).toBe(200);
    expect(svg.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(svg.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'");
    const missing = await call(app, 'GET', '/docs/diagrams/unknown.svg');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ type: 'EMPTY', code: 'DIAGRAM_NOT_GENERATED' });
    expect((await call(app, 'GET', '/docs/diagrams/..%2Fpackage.json')).status).toBe(422);
  });
});
