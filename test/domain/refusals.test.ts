/**
 * The one catalog of refusals: every code written once, with a status, a fix
 * an agent can act on and its wording; and nothing in the source builds a
 * refusal any other way.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { refusal, REFUSALS } from '../../src/domain/refusals.ts';
import { ROOT } from '../helpers/cli.ts';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('the refusal catalog', () => {
  it('gives every code a status, a fix and, for the Gate, its rule in the code', () => {
    const codes = Object.keys(REFUSALS);
    expect(codes.length).toBeGreaterThan(60);
    for (const [code, entry] of Object.entries(REFUSALS)) {
      expect(code, code).toMatch(/^[A-Z][A-Z0-9_]+$/);
      expect(entry.status, code).toBeGreaterThanOrEqual(400);
      expect(entry.status, code).toBeLessThan(600);
      expect(entry.fix.length, code).toBeGreaterThan(5);
      if (code.startsWith('GATE_')) expect(`GATE_${entry.rule?.toUpperCase()}`, code).toBe(code);
    }
  });

  it('builds the body the wire carries: the worded error, the code, the rule, the caller\'s fields, then the fix (a caller\'s own fix keeps its place)', () => {
    const body = refusal('MATTER_NOT_FOUND', { matterId: 'mt_x' }, { matterId: 'mt_x' }).toBody();
    expect(body).toEqual({ error: 'Matter mt_x does not exist here', code: 'MATTER_NOT_FOUND', matterId: 'mt_x', fix: REFUSALS.MATTER_NOT_FOUND.fix });
    expect(Object.keys(body)).toEqual(['error', 'code', 'matterId', 'fix']);
    // The bodies from before the catalog keep their bytes: a grain gone was {type, error, code, results, fix}.
    expect(JSON.stringify(refusal('WORKSPACE_NOT_FOUND', { id: 'ws_x' }, { results: [] }).toBody())).toBe('{"type":"EMPTY","error":"workspace ws_x does not exist or has expired","code":"WORKSPACE_NOT_FOUND","results":[],"fix":"POST /workspaces"}');
    const gate = refusal('GATE_MERITS', { proposed: 10, floor: 20 });
    expect(gate.status).toBe(422);
    expect(gate.toBody()).toMatchObject({ code: 'GATE_MERITS', rule: 'merits', error: expect.stringContaining('below the Client Mandate settlementFloor 20 USD') });
    const blocked = refusal('SUPPLY_NETWORK_NOT_CONNECTED', {}, { fix: 'set it' });
    expect(blocked.toBody()).toMatchObject({ type: 'BLOCKED', fix: 'set it' });
  });

  it('is the only place a refusal is built', () => {
    const offenders = [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'machines'))]
      .filter((path) => !path.endsWith('refusals.ts'))
      .filter((path) => /new Refusal\(|\brefuse\.\w+\(/.test(readFileSync(path, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
