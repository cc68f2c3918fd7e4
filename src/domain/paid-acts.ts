/**
 * Which acts are paid, and at what posted price, for the caller's hard spend
 * ceiling. Opening a Matter commits the caller to its posted Product Fee (the
 * Meter releases it only when the Matter is fulfilled: no filing, no charge),
 * so the ceiling counts it when the Matter opens; later advances of the same
 * Matter add nothing. Reads are free and never count.
 */
import { isMatterType, type MatterType } from './matter-types.ts';
import { POSTED_PRICES } from './pricing.ts';

export interface PaidActPrice {
  priceUsd: number;
  act: string;
}

export function matterOpening(matterType: MatterType, door: string): PaidActPrice {
  return { priceUsd: POSTED_PRICES[matterType].productFeeUsd, act: `${door} (a ${matterType} Matter: its posted Product Fee)` };
}

/** The paid act of a creation body, or null when the body names no ratified type. */
export const matterOpeningOf = (body: unknown, door: string): PaidActPrice | null => {
  const type = (body as { matterType?: unknown } | undefined)?.matterType;
  return isMatterType(type) ? matterOpening(type, door) : null;
};
