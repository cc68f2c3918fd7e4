/**
 * The top level's Signer registry in the preview: the Signers an operator
 * registers in a JSON file (`LEGALWORK_SIGNER_REGISTRY`), an array of
 * `{signerId, credentialRef, standing, coverageInForce}`. No file: no Signer
 * is registered, so no result can land at the top level.
 *
 * The file is read afresh at every verification ("checked fresh at call
 * time"): a Signer struck off, or whose cover lapsed, is refused from the
 * next result on, with no restart. A Signer verifies eligible only with
 * `standing: "good"`, `coverageInForce: true` and, when an Attestation cites
 * a credential, the very `credentialRef` registered for them.
 */
import { readFile } from 'node:fs/promises';
import { refusal } from './refusals.ts';
import type { SignerVerdict } from '../../machines/matter.decide.ts';
import type { SignerRegistry } from './signer-registry.ts';

export interface RegisteredSigner {
  signerId: string;
  credentialRef: string;
  /** `good`, or the word the licensing body uses for anything else (`lapsed`, `suspended`, …). */
  standing: string;
  coverageInForce: boolean;
}

/** Reads and checks a registry document; throws a worded Error naming `source` and the first bad entry. */
export function parseSignerRegistry(text: string, source: string): RegisteredSigner[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`the Signer registry ${source} is not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new Error(`the Signer registry ${source} must be a JSON array of {signerId, credentialRef, standing, coverageInForce}`);
  return parsed.map((entry, i) => {
    const e = entry as Partial<RegisteredSigner> | null;
    const valid = e !== null && typeof e === 'object' && [e.signerId, e.credentialRef, e.standing].every((v) => typeof v === 'string' && v.trim() !== '') && typeof e.coverageInForce === 'boolean';
    if (!valid) throw new Error(`entry ${i} of the Signer registry ${source} must be {signerId, credentialRef, standing, coverageInForce}: three non-empty strings and a boolean`);
    return { signerId: e.signerId!, credentialRef: e.credentialRef!, standing: e.standing!, coverageInForce: e.coverageInForce! };
  });
}

/** A registry over whatever `load` answers at each verification. */
export function registeredSigners(load: () => Promise<RegisteredSigner[]>): SignerRegistry {
  return {
    async verify(signerId, credentialRef) {
      const signer = (await load()).find((s) => s.signerId === signerId);
      return signer ? verdictOf(signer, credentialRef) : unknownSigner(signerId);
    },
  };
}

/** The registry of a JSON file (none: nobody is registered). An unreadable file answers 503: nothing is applied, and the caller retries. */
export function signerRegistryFile(path: string | undefined): SignerRegistry {
  if (!path) return registeredSigners(async () => []);
  return registeredSigners(async () => {
    try {
      return parseSignerRegistry(await readFile(path, 'utf8'), path);
    } catch (error) {
      throw refusal('SIGNER_REGISTRY_UNAVAILABLE', { reason: (error as Error).message });
    }
  });
}

function verdictOf(signer: RegisteredSigner, credentialRef: string | undefined): SignerVerdict {
  const { signerId } = signer;
  if (signer.standing !== 'good') {
    return { eligible: false, signerId, predicate: 'standing', error: `Signer ${signerId} fails the standing predicate: the registry records their standing as "${signer.standing}"`, cure: 'the Signer restores good standing with their licensing body; the Gig stays pending for another Signer meanwhile' };
  }
  if (!signer.coverageInForce) {
    return { eligible: false, signerId, predicate: 'coverage', error: `Signer ${signerId} fails the coverage predicate: the registry records no professional coverage in force`, cure: 're-verify coverage in force (current malpractice coverage) and submit the result again' };
  }
  if (credentialRef !== undefined && credentialRef !== signer.credentialRef) {
    return { eligible: false, signerId, predicate: 'credential', error: `the Attestation cites credential ${credentialRef}, which is not the credential the registry holds for Signer ${signerId}`, cure: 'the Signer attests under their own registered credential' };
  }
  return { eligible: true, signerId };
}

function unknownSigner(signerId: string): SignerVerdict {
  return { eligible: false, signerId, predicate: 'eligibility', error: `Signer ${signerId} is not in the Signer registry, so eligibility cannot be verified`, cure: 'the result must come from a Signer registered as eligible (the operator registers Signers in LEGALWORK_SIGNER_REGISTRY)' };
}
