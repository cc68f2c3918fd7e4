/**
 * Tools beyond the specification's six, for an agent rehearsing the demand
 * loop in a sandbox workspace (keyless, synthetic, TTL-bound): open a
 * workspace, create and advance a Matter in it, answer its Gig as a fixture
 * Signer would, tick its Asset's Deadline Ladder, and read its event tail.
 * They act only inside a workspace, so no rehearsal touches the top level.
 */
import { z } from 'zod';
import { FIXTURE } from '../domain/fixtures.ts';
import { ASSET_KINDS, CONSUMER_PATTERNS, GIG_OUTCOMES, MATTER_TYPES } from '../domain/matter-types.ts';
import { FEEDS, type Feed } from '../journal/store.ts';
import { grainPrefix, seg, type PathTo, type RequestBody } from '../client/service-client.ts';
import { isToolResult } from './call.ts';
import type { RegisterTool } from './register.ts';
import { anId, MatterId, READ, WorkspaceId, WRITE } from './schemas.ts';
import { fromAnswer, refusal } from './tool-result.ts';
import { sha256Hex } from '../domain/hash.ts';

/** The fixture Signers and how the sandbox registry treats them. */
const FIXTURE_SIGNERS = [FIXTURE.eligibleSigner, FIXTURE.lapsedSigner, FIXTURE.lapsedCoverageSigner] as const;

/** A `<registry>:<number>` credential for a fixture Signer (the sandbox registry keys on signedBy). */
const fixtureCredential = (signer: string) => `sandbox-registry:${signer.replace(/_/g, '-')}`;
/** A stand-in artifact hash: the Signer's work product is not carried in the sandbox. */
const syntheticArtifactHash = (matterId: string, gigId: string) => `sha256:${sha256Hex(`${matterId}/${gigId}`)}`;

export function registerSandboxTools(tool: RegisterTool) {
  tool(
    'sandbox_open_workspace',
    {
      title: 'Open a sandbox workspace',
      description: 'POST /workspaces: a keyless, synthetic, TTL-bound workspace to rehearse in. Answers its id (ws_…), expiry and graduation path; the magic fixtures are listed at /workspaces/{id}/fixtures (read them with get).',
      inputSchema: z.strictObject({}),
      hints: WRITE,
    },
    (_, calls) => calls.call<'/workspaces', 'post'>('POST', '/workspaces', { keyless: true }),
  );

  tool(
    'sandbox_create_matter',
    {
      title: 'Create a Matter in a workspace',
      description: [
        'POST /workspaces/{workspaceId}/matters: opens a Matter in intake and mints its Asset (with its Deadline Ladder).',
        `Fixtures: clientName "${FIXTURE.fulfillingClient}" has every reserved act attested at once, "${FIXTURE.decliningClient}" has it declined;`,
        `an assetTitle starting "${FIXTURE.noticeEvePrefix}" rests one day above the 30-day notice rung, "${FIXTURE.ackDuePrefix}" sits in the final week;`,
        `adverse party "${FIXTURE.conflictParty}" raises conflict_hit.`,
      ].join(' '),
      inputSchema: z.strictObject({
        workspaceId: WorkspaceId,
        matterType: z.enum(MATTER_TYPES).describe('a ratified matter type'),
        clientName: z.string().min(1).max(200).optional().describe('client.name'),
        assetTitle: z.string().min(1).max(500).optional().describe('asset.title'),
        assetKind: z.enum(ASSET_KINDS).optional().describe('asset.kind: what the Asset is; left out, the matter type\'s own kind'),
        consumerPattern: z.enum(CONSUMER_PATTERNS).optional(),
        listFeeUsd: z.number().nonnegative().optional(),
        clientState: z.string().regex(/^[A-Z]{2}$/).optional().describe('a two-letter region code'),
        adverseParties: z.array(z.string().min(1).max(200)).max(100).optional(),
        settlementFloorUsd: z.number().nonnegative().optional().describe('clientMandates.settlementFloor'),
        maxFeeUsd: z.number().nonnegative().optional().describe('tenantGuardrails.maxFeeUsd'),
      }),
      hints: WRITE,
    },
    (input, calls) => {
      const body: RequestBody<'/matters', 'post'> = { matterType: input.matterType };
      if (input.clientName !== undefined) body.client = { name: input.clientName };
      if (input.assetTitle !== undefined || input.assetKind !== undefined) body.asset = { ...(input.assetTitle !== undefined ? { title: input.assetTitle } : {}), ...(input.assetKind !== undefined ? { kind: input.assetKind } : {}) };
      // Same names, same types on both sides; TypeScript cannot pair them up through a key union.
      for (const key of ['consumerPattern', 'listFeeUsd', 'clientState', 'adverseParties'] as const) if (input[key] !== undefined) (body as Record<string, unknown>)[key] = input[key];
      if (input.settlementFloorUsd !== undefined) body.clientMandates = { settlementFloor: input.settlementFloorUsd };
      if (input.maxFeeUsd !== undefined) body.tenantGuardrails = { maxFeeUsd: input.maxFeeUsd };
      return calls.call<'/matters', 'post'>('POST', `${grainPrefix(input.workspaceId)}/matters`, { body, keyless: true });
    },
  );

  tool(
    'sandbox_get_matter',
    {
      title: 'Read a workspace Matter',
      description: 'GET /workspaces/{workspaceId}/matters/{matterId}: the Matter, its Asset and its journal.',
      inputSchema: z.strictObject({ workspaceId: WorkspaceId, matterId: MatterId }),
      hints: READ,
    },
    ({ workspaceId, matterId }, calls) => calls.call<'/matters/{id}', 'get'>('GET', `${grainPrefix(workspaceId)}/matters/${seg(matterId)}`, { keyless: true }),
  );

  tool(
    'sandbox_advance_matter',
    {
      title: 'Advance a workspace Matter',
      description: 'POST /workspaces/{workspaceId}/matters/{matterId}/advance: as advance_matter, inside the workspace. A reserved act answers waiting_on_signer; answer its Gig with sandbox_gig_result.',
      inputSchema: z.strictObject({ workspaceId: WorkspaceId, matterId: MatterId, note: z.string().min(1).max(2000).optional() }),
      hints: WRITE,
    },
    ({ workspaceId, matterId, note }, calls) => calls.call<'/matters/{id}/advance', 'post'>('POST', `${grainPrefix(workspaceId)}/matters/${seg(matterId)}/advance`, { body: note !== undefined ? { note } : {}, keyless: true }),
  );

  tool(
    'sandbox_gig_result',
    {
      title: "Answer a Matter's Gig as a fixture Signer",
      description: [
        "POST /workspaces/{workspaceId}/matters/{matterId}/gig-result: plays the supply network's callback for the Matter's pending Gig.",
        `outcome attested lands an Attestation signed by the fixture Signer (${FIXTURE.eligibleSigner} verifies eligible;`,
        `${FIXTURE.lapsedSigner} fails standing and ${FIXTURE.lapsedCoverageSigner} fails coverage, both refused 422 with the Gig still pending);`,
        'send_back (memo: the defects) returns the Matter to prepare; declined (memo) stops it for a Client direction.',
        'The Gig is the pending one unless gigId is given.',
      ].join(' '),
      inputSchema: z.strictObject({
        workspaceId: WorkspaceId,
        matterId: MatterId,
        outcome: z.enum(GIG_OUTCOMES),
        signer: z.enum(FIXTURE_SIGNERS).default(FIXTURE.eligibleSigner).describe('the fixture Signer who answers'),
        memo: z.string().min(1).max(5000).optional().describe('required for send_back (the defects) and declined'),
        gigId: anId('the Gig answered; defaults to the pending Gig').optional(),
      }),
      hints: WRITE,
    },
    async ({ workspaceId, matterId, outcome, signer, memo, gigId }, calls) => {
      const path: PathTo<'/matters/{id}'> = `${grainPrefix(workspaceId)}/matters/${seg(matterId)}`;
      let gig = gigId;
      if (gig === undefined) {
        const read = await calls.fetch<'/matters/{id}', 'get'>('GET', path, { keyless: true });
        if (isToolResult(read)) return read;
        if (!read.ok) return fromAnswer(read);
        const matter = read.body.matter;
        if (!matter?.pendingGigId) {
          return refusal('NO_PENDING_GIG', `Matter ${matterId} holds no pending Gig (it is ${matter?.status ?? 'in an unknown state'}): advance it into a reserved act (sign, file) first`, { matterId, status: matter?.status });
        }
        gig = matter.pendingGigId;
      }
      const body: RequestBody<'/matters/{id}/gig-result', 'post'> = { gigId: gig, outcome };
      body.attestation = outcome === 'attested' ? { signedBy: signer, credentialRef: fixtureCredential(signer), artifactHash: syntheticArtifactHash(matterId, gig) } : { signedBy: signer };
      if (memo !== undefined) body.memo = memo;
      return calls.call<'/matters/{id}/gig-result', 'post'>('POST', `${path}/gig-result`, { body, keyless: true });
    },
  );

  tool(
    'sandbox_tick_ladder',
    {
      title: "Tick an Asset's Deadline Ladder",
      description: "POST /workspaces/{workspaceId}/deadlines/{assetId}/tick: moves the ladder on by days (ladders never move on wall time). Rungs crossed fire reminders onto the tail (the notice at 30 days remaining). The Asset id is the Matter's assetId.",
      inputSchema: z.strictObject({
        workspaceId: WorkspaceId,
        assetId: anId('the Asset id (as_…)'),
        days: z.number().int().describe('how many days pass'),
      }),
      hints: WRITE,
    },
    ({ workspaceId, assetId, days }, calls) => calls.call<'/deadlines/{assetId}/tick', 'post'>('POST', `${grainPrefix(workspaceId)}/deadlines/${seg(assetId)}/tick`, { body: { days }, keyless: true }),
  );

  tool(
    'sandbox_read_events',
    {
      title: "Read a workspace's event tail",
      description: "GET /workspaces/{workspaceId}/events: the workspace's append-only tail after a seq, by feed (timeline: everything; reminders: ladder rungs; time: acts of named actors). Page with after = the last seq read.",
      inputSchema: z.strictObject({
        workspaceId: WorkspaceId,
        after: z.number().int().nonnegative().optional().describe('only events with a greater seq'),
        limit: z.number().int().min(1).max(500).optional().describe('page size (default 100)'),
        feed: z.enum(FEEDS as [Feed, ...Feed[]]).optional(),
      }),
      hints: READ,
    },
    ({ workspaceId, after, limit, feed }, calls) => calls.call<'/events', 'get'>('GET', `${grainPrefix(workspaceId)}/events`, { query: { after, limit, feed }, keyless: true }),
  );
}
