/**
 * The published contract passes the two linters a user's tooling runs:
 * Redocly's `recommended` ruleset (`redocly.yaml`) with no error, and
 * Spectral's `spectral:oas` (`.spectral.yaml`) with no warning or error
 * (issue 23). Both run as their own CLIs, the local devDependencies, on
 * exactly the bytes `GET /openapi.json` serves, so what passes here is what a
 * user linting the served document sees. A failure lists the findings by
 * rule, with a few places each, so it says what to fix.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT as root } from '../src/paths.ts';
import { call, testApp } from './helpers/app.ts';

/** The CLIs start slowly (Spectral bundles its ruleset on every run), and the document is large. */
const LINT_TIMEOUT_MS = 120_000;
/** Where the served document is written for the linters (gitignored). */
const LINT_DIR = join(root, '.contract-lint');

let dir: string;
let file: string;
beforeAll(async () => {
  const app = await testApp();
  try {
    const res = await call(app, 'GET', '/openapi.json');
    if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}: ${res.raw.slice(0, 300)}`);
    // Inside the project: Spectral resolves the per-operation overrides of .spectral.yaml relative to the ruleset.
    mkdirSync(LINT_DIR, { recursive: true });
    dir = mkdtempSync(join(LINT_DIR, 'run-'));
    file = join(dir, 'openapi.json');
    writeFileSync(file, res.raw);
  } finally {
    await app.close();
  }
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the served contract, linted', () => {
  it("has no error under Redocly's recommended ruleset, and no warning but the BLOCKED doors' missing 2xx", async () => {
    // Telemetry off and no update check: a test sends nothing anywhere.
    // Redocly lists at most 100 problems unless told otherwise; its totals count them all.
    const run = await cli('redocly', ['lint', file, '--config', join(root, 'redocly.yaml'), '--format=json', '--max-problems=1000000'], { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' });
    const report = parseJson<RedoclyReport>(run, 'redocly');
    const findings = report.problems.map((p): Finding => ({ rule: p.ruleId, severity: p.severity, where: p.location?.[0]?.pointer ?? '#', message: p.message }));
    const errors = findings.filter((f) => f.severity === 'error');
    expect(errors.length, 'every error Redocly counted is listed').toBe(report.totals.errors);
    expect(errors.length, summary('Redocly recommended', errors, findings)).toBe(0);
    // No warning either (issue 33: `info-license-strict` among them), but the one the BLOCKED-by-design doors must give: no 2xx answer.
    expect(BLOCKED_BY_DESIGN).toHaveLength(8);
    const warnings = findings.filter((f) => f.severity === 'warn');
    expect(warnings.length, 'every warning Redocly counted is listed').toBe(report.totals.warnings);
    const failing = warnings.filter((f) => !(f.rule === 'operation-2xx-response' && BLOCKED_BY_DESIGN.includes(f.where.replace(/\/responses$/, ''))));
    expect(failing.length, summary('Redocly recommended (warnings)', failing, findings)).toBe(0);
  }, LINT_TIMEOUT_MS);

  it("has no warning or error under Spectral's spectral:oas", async () => {
    const run = await cli('spectral', ['lint', file, '--ruleset', join(root, '.spectral.yaml'), '--format', 'json', '--quiet'], {});
    const results = parseJson<SpectralResult[]>(run, 'spectral');
    const findings = results.map((r): Finding => ({ rule: r.code, severity: SPECTRAL_SEVERITY[r.severity] ?? String(r.severity), where: pointer(r.path), message: r.message }));
    const failing = findings.filter((f) => f.severity === 'error' || f.severity === 'warn');
    expect(failing.length, summary('Spectral spectral:oas', failing, findings)).toBe(0);
  }, LINT_TIMEOUT_MS);
});

interface Finding {
  rule: string;
  severity: string;
  /** A JSON pointer into the document. */
  where: string;
  message: string;
}

interface RedoclyReport {
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; severity: 'error' | 'warn'; message: string; location?: Array<{ pointer?: string }> }>;
}

interface SpectralResult {
  code: string;
  severity: number;
  message: string;
  path: Array<string | number>;
}

/**
 * The doors that answer BLOCKED to every caller by design, as `.spectral.yaml`
 * names them (the one list): JSON pointers to their operations. Redocly's
 * `operation-2xx-response` warns on exactly these.
 */
const BLOCKED_BY_DESIGN = [...readFileSync(join(root, '.spectral.yaml'), 'utf8').matchAll(/openapi\.json(#\/paths\/[^"]+)"/g)].map((m) => decodeURIComponent(m[1]));

/** Spectral's numeric severities (DiagnosticSeverity). */
const SPECTRAL_SEVERITY: Record<number, string> = { 0: 'error', 1: 'warn', 2: 'info', 3: 'hint' };

/** A Spectral path as a JSON pointer, the way Redocly names places. */
const pointer = (path: Array<string | number>) => `#/${path.map((s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/** Findings grouped by rule, most frequent first: `rule ×count: message`, then up to three places. */
function byRule(findings: Finding[], examples = 3): string {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) groups.set(f.rule, [...(groups.get(f.rule) ?? []), f]);
  return [...groups.entries()]
    .sort(([a, x], [b, y]) => y.length - x.length || a.localeCompare(b))
    .map(([rule, list]) => [`  ${rule} ×${list.length} (${list[0].severity}): ${list[0].message}`, ...list.slice(0, examples).map((f) => `      ${f.where}${f.message !== list[0].message ? ` (${f.message})` : ''}`)].join('\n'))
    .join('\n');
}

/** What a failure says: the failing findings by rule, then the rest (which do not fail) by rule. */
function summary(linter: string, failing: Finding[], all: Finding[]): string {
  const rest = all.filter((f) => !failing.includes(f));
  return [`${linter}: ${failing.length} failing finding(s)`, byRule(failing), ...(rest.length ? [`not failing (${rest.length}):`, byRule(rest)] : [])].join('\n');
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a local CLI (node_modules/.bin) to its end, whatever its exit code: the linters exit non-zero when they find something. */
function cli(name: string, args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((done, fail) => {
    execFile(join(root, 'node_modules', '.bin', name), args, { cwd: root, env: { ...process.env, NO_COLOR: '1', ...env }, maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      // A CLI that could not be started at all (not installed) fails the test, never skips it.
      if (error && typeof error.code !== 'number') return fail(new Error(`${name} could not run (npm ci installs it): ${error.message}`));
      done({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}

/** A linter's JSON report; when there is none, the linter itself failed, and its own words say why. */
function parseJson<T>(run: Run, name: string): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`${name} wrote no JSON report (exit ${run.code}):\n${run.stderr.slice(-2000) || run.stdout.slice(0, 2000)}`);
  }
}
