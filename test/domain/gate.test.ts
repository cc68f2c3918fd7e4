import { describe, expect, it } from 'vitest';
import { mechanicsRefusal, meritsRefusal } from '../../src/domain/gate.ts';
import { deriveJurisdiction } from '../../src/domain/jurisdiction.ts';
import { settle } from '../../src/domain/pricing.ts';

describe('the Gate', () => {
  it('refuses on mechanics when the list fee passes a cap, naming the rule', () => {
    const refusal = mechanicsRefusal({ listFeeUsd: 300, jurisdiction: 'US-USPTO' }, { maxFeeUsd: 250 });
    expect(refusal?.status).toBe(422);
    expect(refusal?.extra.rule).toBe('mechanics');
    expect(refusal?.message).toMatch(/300.*250/);
    expect(mechanicsRefusal({ listFeeUsd: 250, jurisdiction: 'US-USPTO' }, { maxFeeUsd: 250 })).toBeNull();
  });

  it('checks every guardrail given, and the jurisdiction allowlist', () => {
    expect(mechanicsRefusal({ listFeeUsd: 10, jurisdiction: 'US-CA' }, undefined, { jurisdictions: ['US-NY'] })?.extra.rule).toBe('mechanics');
    expect(mechanicsRefusal({ jurisdiction: 'US-NY' }, { maxFeeUsd: 1 }, { jurisdictions: ['US-NY'] })).toBeNull();
  });

  it('refuses on merits only below the Client floor', () => {
    expect(meritsRefusal({ settlementUsd: 99 }, { settlementFloor: 100 })?.extra.rule).toBe('merits');
    expect(meritsRefusal({ settlementUsd: 100 }, { settlementFloor: 100 })).toBeNull();
    expect(meritsRefusal({ settlementUsd: 1 }, undefined)).toBeNull();
  });
});

describe('jurisdiction rules', () => {
  it('puts patent work with the patent office and state work in the client state or the wildcard', () => {
    expect(deriveJurisdiction({ rail: 'patent', matterType: 'patent_utility', clientState: 'CA' })).toBe('US-USPTO');
    expect(deriveJurisdiction({ rail: 'state', matterType: 'demand_letter', clientState: 'NY' })).toBe('US-NY');
    expect(deriveJurisdiction({ rail: 'state', matterType: 'demand_letter' })).toBe('US-*');
  });
});

describe('settlement', () => {
  it('holds the published identities on both rails', () => {
    for (const [rail, type] of [['patent', 'patent_provisional'], ['state', 'demand_letter']] as const) {
      for (const acts of [0, 1, 2, 3]) {
        const s = settle(rail, type, acts);
        expect(s.insuranceTotalUsd).toBe(s.attestedActs * s.perActInsuranceUsd);
        expect(s.platformNetUsd).toBe(s.productFeeToCustomerUsd - s.legalFeeToSignerUsd - s.insuranceTotalUsd);
      }
    }
    expect(settle('patent', 'patent_provisional', 2).productFeeToCustomerUsd).toBe(199);
    expect(settle('patent', 'patent_utility', 2).productFeeToCustomerUsd).toBe(799);
    expect(settle('state', 'demand_letter', 1).legalFeeMerchantOfRecord).toBe('signer');
  });
});
