/** The human pages' parts: diagrams read at request time (degrading to a link), and the pages' headers. */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCleanSvg, listDiagrams, readDiagram } from '../src/web/diagrams.ts';
import { docsPage } from '../src/web/docs.ts';
import { renderPage } from '../src/web/layout.ts';
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
    // A nonce is base64, whose + and / a pattern would read as its own: it is matched as written.
    const literal = nonce!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    expect(first.raw).toMatch(new RegExp(`<script nonce="${literal}" src="/scripts/sandbox\\.[A-Z0-9]{8}\\.js"></script>`));
    expect(nonceOf(String(second.headers['content-security-policy']))).not.toBe(nonce);
    expect(first.headers['x-content-type-options']).toBe('nosniff');
  });

  it('runs no inline script: each page\'s script is served by its content\'s name, to be cached for good', async () => {
    for (const path of ['/docs', '/sandbox', '/verify', `/workspaces/${(await call(app, 'POST', '/workspaces')).body.workspace.id}/inspect`]) {
      const page = await call(app, 'GET', path);
      expect(page.status, path).toBe(200);
      // Every <script> is the page's own, by its address, or a data block the browser never runs.
      for (const [tag, attrs] of String(page.raw).matchAll(/<script([^>]*)>/g)) expect(/ src="| type="application\/json"/.test(attrs), `${path}: ${tag}`).toBe(true);
      const src = /<script nonce="[^"]+" src="([^"]+)"/.exec(String(page.raw))?.[1];
      if (path === '/verify') {
        expect(src, 'the suite page runs no script').toBeUndefined();
        continue;
      }
      const script = await call(app, 'GET', src!);
      expect(script.status, src).toBe(200);
      expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(script.headers['x-content-type-options']).toBe('nosniff');
      expect(String(script.raw).length).toBeGreaterThan(1000);
    }
  });

  it('answers a script of another build as a typed EMPTY naming the fix, and a name no build makes as malformed', async () => {
    const gone = await call(app, 'GET', '/scripts/inspector.AAAAAAAA.js');
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ type: 'EMPTY', code: 'SCRIPT_NOT_FOUND', fix: expect.stringContaining('load the page again') });
    for (const name of ['..%2Fassets.ts', 'inspector.js', 'inspector.aaaaaaaa.js']) expect((await call(app, 'GET', `/scripts/${name}`)).status, name).toBe(422);
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
