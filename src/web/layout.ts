/**
 * The shell every human page shares: one stylesheet inline, nothing from
 * elsewhere (a page must load without a network error in the console), a
 * navigation bar, and the page's own script from this service
 * (`assets.ts`), bound to a per-response nonce. No script is inline: a
 * page's data travels in `application/json` blocks, which run nothing.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { pageScripts, type PageScript } from './assets.ts';

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `
:root { --ink:#1d2430; --muted:#5b6575; --line:#d9dee6; --accent:#2f5fb3; --ok:#1f7a4d; --warn:#9a5b00; --bad:#a32626; --paper:#fbfcfe; }
* { box-sizing: border-box; }
body { margin:0; font:16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--ink); background:var(--paper); }
header { background:#1d2430; color:#fff; padding:.8rem 1.2rem; display:flex; gap:1.4rem; align-items:baseline; flex-wrap:wrap; }
header strong { font-size:1.15rem; letter-spacing:.02em; }
header a { color:#cfe0ff; text-decoration:none; }
header a[aria-current=page] { color:#fff; text-decoration:underline; }
header .pill { color:var(--ink); }
main { max-width:68rem; margin:0 auto; padding:1.2rem 1.2rem 3rem; }
main.wide { max-width:120rem; }
:focus-visible { outline:3px solid var(--accent); outline-offset:2px; }
.visually-hidden { position:absolute; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0); white-space:nowrap; }
h1 { font-size:1.7rem; margin:.6rem 0 .4rem; } h2 { font-size:1.3rem; margin-top:2rem; border-bottom:1px solid var(--line); padding-bottom:.2rem; }
code, pre { font:13.5px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
pre { background:#f0f3f8; border:1px solid var(--line); padding:.8rem; overflow:auto; border-radius:6px; }
table { border-collapse:collapse; width:100%; margin:.6rem 0; font-size:.94rem; }
th, td { text-align:left; border-bottom:1px solid var(--line); padding:.35rem .5rem; vertical-align:top; }
figure { margin:1rem 0; padding:.6rem; background:#fff; border:1px solid var(--line); border-radius:6px; }
figure img { max-width:100%; height:auto; display:block; margin:0 auto; }
figcaption { color:var(--muted); font-size:.9rem; margin-top:.4rem; }
.note { color:var(--muted); }
.pill { display:inline-block; padding:.05rem .55rem; border-radius:999px; background:#e7ecf5; font-size:.85rem; }
.pill.ok { background:#dff3e8; color:var(--ok); } .pill.warn { background:#fff1d6; color:var(--warn); } .pill.bad { background:#fbe1e1; color:var(--bad); }
button { font:inherit; padding:.45rem .9rem; border-radius:6px; border:1px solid var(--accent); background:var(--accent); color:#fff; cursor:pointer; }
button[disabled] { opacity:.45; cursor:not-allowed; }
button.secondary { background:#fff; color:var(--accent); }
label { display:block; margin:.5rem 0 .2rem; font-weight:600; }
input, select { font:inherit; padding:.4rem; border:1px solid var(--line); border-radius:6px; min-width:18rem; }
.row { display:flex; gap:.6rem; flex-wrap:wrap; align-items:center; margin:.6rem 0; }
.card { background:#fff; border:1px solid var(--line); border-radius:8px; padding:1rem; margin:1rem 0; }
`;

export interface Page {
  title: string;
  path: string;
  body: string;
  /** The page's own script, bundled from its browser module (`src/web/browser/<script>.ts`). */
  script?: PageScript;
  /** The page's own rules, after the shared ones. */
  style?: string;
  /** Use the window's width (a diagram beside a timeline) rather than a reading column. */
  wide?: boolean;
}

const NAV: Array<[string, string]> = [
  ['/docs', 'Docs'],
  ['/sandbox', 'Sandbox'],
  ['/verify', 'Contract suite'],
  ['/openapi.json', 'OpenAPI'],
  ['/pricing', 'Pricing'],
  ['/llms.txt', 'llms.txt'],
];

/** JSON for a page's script, inside a `<script type="application/json">` data block: nothing in it may close the block or open a comment. */
export const dataBlock = (id: string, value: unknown) => `<script type="application/json" id="${id}">${JSON.stringify(value).replace(/</g, '\\u003c')}</script>`;

/** The page's HTML; `scriptSrc` is where its script is served (`PageScripts.src`), loaded under `nonce`. */
export function renderPage(page: Page, nonce: string, scriptSrc?: string): string {
  const nav = NAV.map(([href, label]) => `<a href="${href}"${href === page.path ? ' aria-current="page"' : ''}>${label}</a>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} · legalwork</title>
<link rel="icon" href="data:,">
<style>${STYLE}${page.style ?? ''}</style>
</head>
<body>
<header><strong>legalwork</strong><nav style="display:flex;gap:1rem;flex-wrap:wrap">${nav}</nav><span class="pill">preview · not legal advice</span></header>
<main${page.wide ? ' class="wide"' : ''}>
${page.body}
</main>
${scriptSrc ? `<script nonce="${nonce}" src="${escapeHtml(scriptSrc)}"></script>` : ''}
</body>
</html>
`;
}

/** Headers for a page: its own script only (by nonce: no other script of this service's either), nothing from elsewhere. */
const pageHeaders = (nonce: string) => ({
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': `default-src 'self'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
});

/** Answers a page under a fresh nonce, so only its own script may run. */
export async function sendPage(reply: FastifyReply, page: Page) {
  const nonce = randomBytes(16).toString('base64');
  const src = page.script ? (await pageScripts()).src(page.script) : undefined;
  return reply.headers(pageHeaders(nonce)).send(renderPage(page, nonce, src));
}
