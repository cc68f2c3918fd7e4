/**
 * The Signer registry port: checked fresh at call time before any Signer's
 * answer is applied. The preview's adapter is simulated: it knows the fixture
 * Signers; any other id is unknown to it and so cannot verify eligible.
 */
import { FIXTURE } from './fixtures.ts';

export type SignerPredicate = 'eligibility' | 'standing' | 'coverage';

export type SignerVerdict =
  | { eligible: true; signerId: string }
  | { eligible: false; signerId: string; predicate: SignerPredicate; error: string; cure: string };

export interface SignerRegistry {
  verify(signerId: string): Promise<SignerVerdict>;
}

export const simulatedSignerRegistry: SignerRegistry = {
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
