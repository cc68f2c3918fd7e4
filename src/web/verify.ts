/** The published contract-suite page: the suite's name, its digest pin, its rows, and how to run them. */
import { SUITE_BYTES, SUITE_ID, SUITE_PIN, suiteDocument } from '../verify/suite.ts';
import { escapeHtml as h, type Page } from './layout.ts';

export function verifyPage(): Page {
  const rows = suiteDocument()
    .requirements.map((r) => `<tr><td><code>${h(r.id)}</code></td><td><code>${r.method} ${h(r.path)}</code></td><td>${r.status}</td><td>${h(r.why)}</td></tr>`)
    .join('');
  return {
    title: `Contract suite ${SUITE_ID}`,
    path: '/verify',
    body: `
<h1>Contract suite <code>${SUITE_ID}</code></h1>
<p>The published public-contract suite of this service: declarative GET rows over its live doors. Each row holds against any running legalwork service, whatever state it is in.</p>
<div class="card">
<p><strong>Suite</strong> <code id="suite-id">${SUITE_ID}</code></p>
<p><strong>Pin</strong> (sha256 of the exact bytes of <a href="/verify/suite.json">/verify/suite.json</a>, ${SUITE_BYTES.length} bytes):<br><code id="suite-pin">${SUITE_PIN}</code></p>
<p>Check it yourself: <code>curl -s $BASE/verify/suite.json | sha256sum</code></p>
<p>Run it against any service: <code>legalwork verify --url $BASE</code> (prints which rows hold; exit 0 when all do).</p>
</div>
<h2>Requirements</h2>
<table><thead><tr><th>id</th><th>request</th><th>status</th><th>why</th></tr></thead><tbody>${rows}</tbody></table>
`,
  };
}
