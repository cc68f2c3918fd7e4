/**
 * A key's life as the contract states it: where a key can stand and how
 * long a rolled one stays honoured. Here, below the engine, so the request
 * and answer schemas that state them and the engine that enforces them read
 * one definition.
 */

/** Where a key stands: `active` and `rolled` (until its expiry) are honoured, `revoked` and `expired` are refused. */
export type KeyState = 'active' | 'rolled' | 'revoked' | 'expired';
export const KEY_STATES: readonly KeyState[] = ['active', 'rolled', 'revoked', 'expired'];

/** The longest a rolled key may stay honoured: 7 days, as Stripe allows. */
export const MAX_ROLL_EXPIRY_SECONDS = 7 * 24 * 60 * 60;
/** How long a rolled key stays honoured when its holder does not say: a day, to deploy the successor in. */
export const DEFAULT_ROLL_EXPIRY_SECONDS = 24 * 60 * 60;
