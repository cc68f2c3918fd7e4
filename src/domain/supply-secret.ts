/**
 * The supply network's signing secret (`LEGALWORK_SUPPLY_SECRET`): domain
 * configuration, read here as the clock (`clock.ts`) and the Signer registry
 * (`registered-signers.ts`) are, and by everyone who needs it: the service at
 * start-up (which verifies the top-level callback's Standard Webhooks
 * signature with it, `src/http/supply-callback.ts`) and `legalwork supply
 * sign` (which makes one). Neither reads it from the other's layer.
 *
 * The secret is `whsec_` followed by the base64 of at least 24 random bytes,
 * as Standard Webhooks writes one. Unset (or empty), no supply network is
 * connected: the top-level callback door answers 403 BLOCKED.
 */

/** The setting's name, as an operator sets it and a refusal names it. */
export const SUPPLY_SECRET_SETTING = 'LEGALWORK_SUPPLY_SECRET';

const SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
const MIN_SECRET_BYTES = 24;

/**
 * Checks a secret: undefined when none is given; a malformed one throws a
 * worded Error naming `setting` (it would refuse every callback, so the
 * service refuses to start instead, and the CLI refuses to sign).
 */
export function supplySecretOf(value: string | undefined, setting: string = SUPPLY_SECRET_SETTING): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!SECRET.test(value) || Buffer.from(value.slice('whsec_'.length), 'base64').length < MIN_SECRET_BYTES) {
    throw new Error(`${setting} must be "whsec_" followed by the base64 of at least ${MIN_SECRET_BYTES} random bytes (the supply network's Standard Webhooks signing secret)`);
  }
  return value;
}

/** The secret the environment names (`LEGALWORK_SUPPLY_SECRET`), checked. */
export const supplySecretFromEnv = (env: NodeJS.ProcessEnv): string | undefined => supplySecretOf(env[SUPPLY_SECRET_SETTING]);
