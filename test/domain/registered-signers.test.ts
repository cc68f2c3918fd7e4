/** The top level's Signer registry file: read afresh at every verification, worded when it is wrong. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSignerRegistry, registeredSigners, signerRegistryFile } from '../../src/domain/registered-signers.ts';

const ADA = { signerId: 'sg_ada', credentialRef: 'uspto-reg:81234', standing: 'good', coverageInForce: true };
const dir = mkdtempSync(join(tmpdir(), 'legalwork-registry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('parseSignerRegistry', () => {
  it('reads an array of registered Signers, and words what is wrong', () => {
    expect(parseSignerRegistry(JSON.stringify([ADA]), 'r.json')).toEqual([ADA]);
    expect(() => parseSignerRegistry('{', 'r.json')).toThrow(/r\.json is not JSON/);
    expect(() => parseSignerRegistry('{}', 'r.json')).toThrow(/must be a JSON array/);
    expect(() => parseSignerRegistry(JSON.stringify([{ ...ADA, coverageInForce: 'yes' }]), 'r.json')).toThrow(/entry 0 .* three non-empty strings and a boolean/);
    expect(() => parseSignerRegistry(JSON.stringify([ADA, { ...ADA, standing: '' }]), 'r.json')).toThrow(/entry 1/);
  });
});

describe('verdicts', () => {
  const registry = registeredSigners(async () => [ADA, { ...ADA, signerId: 'sg_lapsed', standing: 'lapsed' }, { ...ADA, signerId: 'sg_bare', coverageInForce: false }]);
  it.each([
    ['sg_ada', undefined, true, undefined],
    ['sg_ada', 'uspto-reg:81234', true, undefined],
    ['sg_ada', 'uspto-reg:1', false, 'credential'],
    ['sg_lapsed', undefined, false, 'standing'],
    ['sg_bare', undefined, false, 'coverage'],
    ['sg_fixture_eligible', undefined, false, 'eligibility'],
  ])('%s citing %s: eligible %s', async (signerId, credentialRef, eligible, predicate) => {
    const verdict = await registry.verify(signerId, credentialRef);
    expect(verdict.eligible).toBe(eligible);
    if (!verdict.eligible) {
      expect(verdict.predicate).toBe(predicate);
      expect(verdict.error).toContain(signerId);
      expect(verdict.cure.length).toBeGreaterThan(10);
    }
  });
});

describe('signerRegistryFile', () => {
  it('registers nobody without a file', async () => {
    expect((await signerRegistryFile(undefined).verify('sg_ada')).eligible).toBe(false);
  });

  it('reads the file afresh at each verification, and answers 503 while it is unreadable', async () => {
    const file = join(dir, 'signers.json');
    writeFileSync(file, JSON.stringify([ADA]));
    const registry = signerRegistryFile(file);
    expect((await registry.verify('sg_ada')).eligible).toBe(true);
    writeFileSync(file, JSON.stringify([{ ...ADA, standing: 'suspended' }]));
    expect(await registry.verify('sg_ada')).toMatchObject({ eligible: false, predicate: 'standing' });
    writeFileSync(file, '[{');
    await expect(registry.verify('sg_ada')).rejects.toMatchObject({ status: 503, code: 'SIGNER_REGISTRY_UNAVAILABLE' });
  });
});
