/**
 * The Signer registry port: checked fresh at call time before any Signer's
 * answer is applied. Sandbox grains ask the fixture registry below: it knows
 * the fixture Signers, and any other id is unknown to it. The top level asks
 * the Signers an operator registered (`registered-signers.ts`).
 */
import type { SignerVerdict } from '../../machines/matter.decide.ts';
import { FIXTURE } from './fixtures.ts';

export interface SignerRegistry {
  /** Is the Signer eligible now, and (when given) is `credentialRef` the credential the registry holds for them? */
  verify(signerId: string, credentialRef?: string): Promise<SignerVerdict>;
}

/** The sandbox's registry: the fixture Signers, whatever credential they cite. */
export const fixtureSignerRegistry: SignerRegistry = {
  async verify(signerId) {
    switch (signerId) {
      case FIXTURE.eligibleSigner:
        return { eligible: true, signerId };
      case FIXTURE.lapsedSigner:
        return { eligible: false, signerId, predicate: 'standing', error: `Signer ${signerId} fails the standing predicate: their licence is not in good standing`, cure: 'the Signer restores good standing with their licensing body; the Gig stays pending for another Signer meanwhile' };
      case FIXTURE.lapsedCoverageSigner:
        return { eligible: false, signerId, predicate: 'coverage', error: `Signer ${signerId} fails the coverage predicate: professional coverage is not fresh`, cure: 're-verify coverage in force (current malpractice coverage) and submit the result again' };
      default:
        return { eligible: false, signerId, predicate: 'eligibility', error: `Signer ${signerId} is unknown to the Signer registry, so eligibility cannot be verified`, cure: 'the result must come from a Signer the registry verifies eligible (in the sandbox: sg_fixture_eligible)' };
    }
  },
};
