/**
 * The supply network, as tests play it at the top level: a signing secret,
 * a registered eligible Signer, and Standard Webhooks signatures made with
 * the `standardwebhooks` package over the exact body text sent.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { registeredSigners, type RegisteredSigner } from '../../src/domain/registered-signers.ts';
import { sha256Hex } from '../../src/domain/hash.ts';

export const SUPPLY_SECRET = `whsec_${randomBytes(32).toString('base64')}`;

export const REGISTERED_SIGNER: RegisteredSigner = { signerId: 'sg_registered_agent', credentialRef: 'uspto-reg:80001', standing: 'good', coverageInForce: true };

/** Build options for a top level with a connected supply network and one registered eligible Signer. */
export const connectedTopLevel = (signers: RegisteredSigner[] = [REGISTERED_SIGNER]) => ({ supplySecret: SUPPLY_SECRET, signers: registeredSigners(async () => signers) });

/** The registered Signer's Attestation of an artifact. */
export const registeredAttestation = (artifact = 'artifact') => ({ signedBy: REGISTERED_SIGNER.signerId, credentialRef: REGISTERED_SIGNER.credentialRef, artifactHash: `sha256:${sha256Hex(artifact)}` });

/** A body as the network sends it: its exact text and the Standard Webhooks headers that sign it. */
export function signed(body: unknown, options: { secret?: string; id?: string; at?: Date } = {}) {
  const payload = JSON.stringify(body);
  const id = options.id ?? `msg_${randomUUID()}`;
  const at = options.at ?? new Date();
  const headers = {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(options.secret ?? SUPPLY_SECRET).sign(id, at, payload),
  };
  return { payload, headers };
}
