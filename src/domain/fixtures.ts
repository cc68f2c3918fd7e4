/**
 * The sandbox's magic fixtures: deterministic values that make the simulated
 * supply network, Signer registry and ladders behave as the listing promises.
 */
export const FIXTURE = {
  eligibleSigner: 'sg_fixture_eligible',
  lapsedSigner: 'sg_fixture_lapsed',
  lapsedCoverageSigner: 'sg_fixture_lapsed_coverage',
  conflictParty: 'Conflicted Holdings LLC (fixture)',
  ackDuePrefix: '[fixture:ack-due]',
  noticeEvePrefix: '[fixture:notice-eve]',
  decliningClient: 'Declining Client (fixture)',
  fulfillingClient: 'Fulfilling Client (fixture)',
} as const;

/** The offer a provisional order names: the CLI's default offer, and the one MCP's file_provisional orders. */
export const PROVISIONAL_OFFER = 'patent-provisional';

export interface FixtureListing {
  name: string;
  use: { field: string; value: string };
  promise: string;
}

export const FIXTURE_LISTING: readonly FixtureListing[] = [
  { name: 'eligible-signer', use: { field: 'attestation.signedBy', value: FIXTURE.eligibleSigner }, promise: 'always verifies eligible; the attestation lands' },
  { name: 'lapsed-signer', use: { field: 'attestation.signedBy', value: FIXTURE.lapsedSigner }, promise: 'always fails standing; gig-result answers 422 and the Gig stays pending' },
  { name: 'lapsed-coverage-signer', use: { field: 'attestation.signedBy', value: FIXTURE.lapsedCoverageSigner }, promise: 'fails coverage freshness; 422 names the cure (re-verify coverage in force); the Gig stays pending' },
  { name: 'conflict-party', use: { field: 'adverseParties[]', value: FIXTURE.conflictParty }, promise: 'the Matter carries the conflict_hit signal from intake' },
  { name: 'ack-due-asset', use: { field: 'asset.title (prefix)', value: FIXTURE.ackDuePrefix }, promise: 'the ladder sits inside the final week; the daily-ack rung is live from the first read' },
  { name: 'notice-eve-asset', use: { field: 'asset.title (prefix)', value: FIXTURE.noticeEvePrefix }, promise: 'the ladder rests one day above the 30-day notice rung; the first tick fires the notice reminder onto the tail' },
  { name: 'declining-client', use: { field: 'client.name', value: FIXTURE.decliningClient }, promise: 'every reserved-act Gig is declined at once; the Matter lands in needs_client_direction' },
  { name: 'fulfilling-client', use: { field: 'client.name', value: FIXTURE.fulfillingClient }, promise: 'every reserved-act Gig is attested at once by the eligible fixture Signer; repeated advances walk to fulfilled' },
];

/** How the simulated supply network answers this Client's Gigs. */
export type ClientFixture = 'declining' | 'fulfilling' | null;

export function clientFixtureOf(name: string | undefined): ClientFixture {
  if (name === FIXTURE.decliningClient) return 'declining';
  if (name === FIXTURE.fulfillingClient) return 'fulfilling';
  return null;
}

export function isConflictParty(name: string): boolean {
  return name.trim().toLowerCase() === FIXTURE.conflictParty.toLowerCase();
}
