/**
 * Posted flat prices and settlement. Fees are flat only: no hourly and no
 * percent-of-outcome price exists anywhere. The Legal Fee is a flat amount per
 * attested act, never split, shared or scaled by outcome.
 *
 * Settlement holds `insuranceTotalUsd = attestedActs * perActInsuranceUsd` and
 * `platformNetUsd = productFee - legalFee - insuranceTotal` on both rails.
 */
import type { MatterType, Rail } from './matter-types.ts';

export interface PostedPrice {
  productFeeUsd: number;
  legalFeePerActUsd: number;
}

/** Product Fee (to the Customer) and the flat per-act Legal Fee (to the Signer). */
export const POSTED_PRICES: Record<MatterType, PostedPrice> = {
  patent_provisional: { productFeeUsd: 199, legalFeePerActUsd: 60 },
  patent_utility: { productFeeUsd: 799, legalFeePerActUsd: 250 },
  patent_maintenance: { productFeeUsd: 149, legalFeePerActUsd: 40 },
  trademark_office_action: { productFeeUsd: 249, legalFeePerActUsd: 75 },
  demand_letter: { productFeeUsd: 149, legalFeePerActUsd: 50 },
  contract_review: { productFeeUsd: 199, legalFeePerActUsd: 60 },
  entity_formation: { productFeeUsd: 99, legalFeePerActUsd: 25 },
};

export const PER_ACT_INSURANCE_USD = 5;

export interface Settlement {
  rail: Rail;
  merchantOfRecord: string;
  productFeeToCustomerUsd: number;
  legalFeeToSignerUsd: number;
  attestedActs: number;
  perActInsuranceUsd: number;
  insuranceTotalUsd: number;
  platformNetUsd: number;
  legalFeeMerchantOfRecord: string;
}

export function settle(rail: Rail, matterType: MatterType, attestedActs: number): Settlement {
  const price = POSTED_PRICES[matterType];
  const legalFee = price.legalFeePerActUsd * attestedActs;
  const insuranceTotal = attestedActs * PER_ACT_INSURANCE_USD;
  return {
    rail,
    // Patent rail: the platform is provider and merchant of record. State rail:
    // the platform invoices only its Product Fee; the Signer is merchant of
    // record for the Legal Fee, which is recorded and never platform revenue.
    merchantOfRecord: 'platform',
    legalFeeMerchantOfRecord: rail === 'patent' ? 'platform' : 'signer',
    productFeeToCustomerUsd: price.productFeeUsd,
    legalFeeToSignerUsd: legalFee,
    attestedActs,
    perActInsuranceUsd: PER_ACT_INSURANCE_USD,
    insuranceTotalUsd: insuranceTotal,
    platformNetUsd: price.productFeeUsd - legalFee - insuranceTotal,
  };
}
