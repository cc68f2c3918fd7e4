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
import { anId, documented, EXAMPLE_IDS, MatterId, READ, WorkspaceId, WRITE } from './schemas.ts';
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
      description: [
        'POST /workspaces: a keyless, synthetic, TTL-bound workspace to rehearse in. Answers its id (ws_…), expiry and graduation path; the magic fixtures are listed at /workspaces/{id}/fixtures (read them with get).',
        'Use it first, before any other sandbox_* tool, and again when a workspace has expired (WORKSPACE_NOT_FOUND).',
        'Refused 429 CREATION_BOUND when this caller opened too many workspaces lately: reuse one you hold, or wait retryAfterSeconds.',
      ].join(' '),
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
        'Use it to rehearse a Matter end to end before acting at the top level (file_provisional, advance_matter).',
        'Refusals come back as error results with a fix: 404 WORKSPACE_NOT_FOUND (unknown or expired: open one with sandbox_open_workspace),',
        '422 INVALID_REQUEST (a field off its schema: `field` names it, the fix says what to send).',
      ].join(' '),
      inputSchema: z.strictObject({
        workspaceId: WorkspaceId,
        matterType: documented(z.enum(MATTER_TYPES), 'a ratified matter type: it decides the rail, the stages and the Asset minted', ['patent_provisional']),
        clientName: documented(z.string().min(1).max(200).optional(), `client.name; "${FIXTURE.fulfillingClient}" has every reserved act attested at once, "${FIXTURE.decliningClient}" has it declined`, [FIXTURE.fulfillingClient, 'Ada Lovelace']),
        assetTitle: documented(z.string().min(1).max(500).optional(), `asset.title; a title starting "${FIXTURE.noticeEvePrefix}" rests one day above the 30-day notice rung, "${FIXTURE.ackDuePrefix}" sits in the final week`, [`${FIXTURE.noticeEvePrefix} Self-folding map`, 'Self-folding map']),
        assetKind: documented(z.enum(ASSET_KINDS).optional(), 'asset.kind: what the Asset is; left out, the matter type\'s own kind', ['patent_application']),
        consumerPattern: documented(z.enum(CONSUMER_PATTERNS).optional(), 'the agent class the Matter is opened for (default B2A); a B2A2D Matter needs the Client\'s consent to pass intake', ['B2A']),
        listFeeUsd: documented(z.number().nonnegative().optional(), 'the list fee in USD, checked against maxFeeUsd when one is set', [199]),
        clientState: documented(z.string().regex(/^[A-Z]{2}$/).optional(), 'the Client\'s two-letter region code, upper case', ['CA']),
        adverseParties: documented(z.array(z.string().min(1).max(200)).max(100).optional(), `the parties adverse to the Client, checked for conflicts; "${FIXTURE.conflictParty}" raises conflict_hit`, [[FIXTURE.conflictParty]]),
        settlementFloorUsd: documented(z.number().nonnegative().optional(), 'clientMandates.settlementFloor: the Client Mandate no settlement may go below, in USD', [5000]),
        maxFeeUsd: documented(z.number().nonnegative().optional(), 'tenantGuardrails.maxFeeUsd: the fee cap a listFeeUsd above is refused by (GATE_MECHANICS)', [500]),
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
      description: [
        'GET /workspaces/{workspaceId}/matters/{matterId}: the Matter, its Asset and its journal.',
        'Use it after each advance or Gig result to see the stage, the status and pendingGigId.',
        'Refused 404 MATTER_NOT_FOUND (not a Matter of this workspace) or WORKSPACE_NOT_FOUND (unknown or expired: open a new workspace).',
      ].join(' '),
      inputSchema: z.strictObject({ workspaceId: WorkspaceId, matterId: MatterId }),
      hints: READ,
    },
    ({ workspaceId, matterId }, calls) => calls.call<'/matters/{id}', 'get'>('GET', `${grainPrefix(workspaceId)}/matters/${seg(matterId)}`, { keyless: true }),
  );

  tool(
    'sandbox_advance_matter',
    {
      title: 'Advance a workspace Matter',
      description: [
        'POST /workspaces/{workspaceId}/matters/{matterId}/advance: as advance_matter, inside the workspace. A reserved act answers waiting_on_signer; answer its Gig with sandbox_gig_result.',
        'Use it to walk a rehearsal Matter through its stages (intake, prepare, examine, review, then the reserved acts sign and file).',
        'Refusals come back as error results with a fix: 409 MATTER_WAITING_ON_SIGNER (answer the Gig with sandbox_gig_result), 409 MATTER_TERMINAL (open a new Matter),',
        '422 GATE_CONSENT (a B2A2D Matter needs the Client\'s consent first), 404 WORKSPACE_NOT_FOUND (open a new workspace).',
      ].join(' '),
      inputSchema: z.strictObject({
        workspaceId: WorkspaceId,
        matterId: MatterId,
        note: documented(z.string().min(1).max(2000).optional(), 'a note journaled with the advance', ['the intake facts are complete']),
      }),
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
        'Use it when a rehearsal Matter is waiting_on_signer, to play each answer a Signer can give.',
        'Refusals come back as error results with a fix: NO_PENDING_GIG (advance the Matter into sign or file first), 422 SIGNER_STANDING or SIGNER_COVERAGE',
        `(the fixture Signer fails on purpose; the Gig stays pending: answer as ${FIXTURE.eligibleSigner}), 422 GATE_DEFECTS or GATE_MEMO (send memo), 409 GIG_MISMATCH (gigId is not the pending Gig).`,
      ].join(' '),
      inputSchema: z.strictObject({
        workspaceId: WorkspaceId,
        matterId: MatterId,
        outcome: documented(z.enum(GIG_OUTCOMES), 'the Signer\'s answer: attested (the act is done), send_back (defects found: back to prepare), declined (stops the Matter until the Client speaks)', ['attested']),
        signer: documented(z.enum(FIXTURE_SIGNERS).default(FIXTURE.eligibleSigner), `the fixture Signer who answers: ${FIXTURE.eligibleSigner} verifies eligible, ${FIXTURE.lapsedSigner} fails standing, ${FIXTURE.lapsedCoverageSigner} fails coverage`, [FIXTURE.eligibleSigner]),
        memo: documented(z.string().min(1).max(5000).optional(), 'required for send_back (the defects found) and declined (the Declination\'s words)', ['claim 3 lacks antecedent basis']),
        gigId: documented(anId('the Gig answered', EXAMPLE_IDS.gig).optional(), 'the Gig answered (gig_…); left out, the Matter\'s pendingGigId', [EXAMPLE_IDS.gig]),
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
          return refusal('NO_PENDING_GIG', `Matter ${matterId} holds no pending Gig (it is ${matter?.status ?? 'in an unknown state'}): advance it into a reserved act (sign, file) first`, {
            matterId,
            status: matter?.status,
            fix: 'advance the Matter with sandbox_advance_matter until it answers waiting_on_signer, then answer its Gig',
          });
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
      description: [
        "POST /workspaces/{workspaceId}/deadlines/{assetId}/tick: moves the ladder on by days (ladders never move on wall time). Rungs crossed fire reminders onto the tail (the notice at 30 days remaining). The Asset id is the Matter's assetId.",
        'Use it to rehearse the deadline reminders without waiting days, then read them with sandbox_read_events (feed reminders).',
        'Refusals come back as error results with a fix: 409 TICK_REFUSED (more days than remain, or the terminal rung: tick fewer, or satisfy or resolve),',
        '409 LADDER_RESOLVED (the ladder is closed for good), 404 LADDER_NOT_FOUND (send the Matter\'s assetId).',
      ].join(' '),
      inputSchema: z.strictObject({
        workspaceId: WorkspaceId,
        assetId: anId('the Asset id (as_…): the assetId of the Matter that minted it', EXAMPLE_IDS.asset),
        days: documented(z.number().int(), 'how many days pass: at most the days that remain (daysUntilDeadline)', [1]),
      }),
      hints: WRITE,
    },
    ({ workspaceId, assetId, days }, calls) => calls.call<'/deadlines/{assetId}/tick', 'post'>('POST', `${grainPrefix(workspaceId)}/deadlines/${seg(assetId)}/tick`, { body: { days }, keyless: true }),
  );

  tool(
    'sandbox_read_events',
    {
      title: "Read a workspace's event tail",
      description: [
        "GET /workspaces/{workspaceId}/events: the workspace's append-only tail after a seq, by feed (timeline: everything; reminders: ladder rungs; time: acts of named actors). Page with after = the last seq read.",
        'Use it to see what an advance, a Gig result or a tick put on the tail.',
        'Refused 404 WORKSPACE_NOT_FOUND (unknown or expired: open a new workspace) or 422 INVALID_REQUEST (a query value off its schema: the fix names the bound).',
      ].join(' '),
      inputSchema: z.strictObject({
        workspaceId: WorkspaceId,
        after: documented(z.number().int().nonnegative().optional(), 'only events with a greater seq: 0 for the start, then the last seq read', [0]),
        limit: documented(z.number().int().min(1).max(500).optional(), 'page size, 1 to 500 (default 100)', [100]),
        feed: documented(z.enum(FEEDS as [Feed, ...Feed[]]).optional(), 'timeline: everything; reminders: ladder rungs; time: acts of named actors (default timeline)', ['reminders']),
      }),
      hints: READ,
    },
    ({ workspaceId, after, limit, feed }, calls) => calls.call<'/events', 'get'>('GET', `${grainPrefix(workspaceId)}/events`, { query: { after, limit, feed }, keyless: true }),
  );
}
