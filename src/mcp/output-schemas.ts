/**
 * The output schemas the tools declare: the parts of each answer an agent can
 * rely on (the rest passes through, so the service may add fields freely).
 * The SDK checks every successful result against them.
 */
import { z } from 'zod';

/** Ids as the service accepts them in paths. */
export const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

const Outcome = z.enum(['OK', 'EMPTY', 'BLOCKED']);

/** A list answer: OK with results, a truthful EMPTY, or BLOCKED. */
export const ENVELOPE = z.looseObject({ type: Outcome, results: z.array(z.unknown()).optional() });

const Matter = z.looseObject({
  id: z.string(),
  stage: z.string(),
  status: z.string(),
  assetId: z.string(),
  pendingGigId: z.string().optional(),
});

/** A Matter door's answer: the Matter, and what the door did to it. */
export const MATTER_ANSWER = z.looseObject({
  type: z.literal('OK'),
  matter: Matter,
  committed: z.looseObject({ advanceTo: z.string(), by: z.string() }).optional(),
  escalated: z.looseObject({ reservedAct: z.string(), gigId: z.string() }).optional(),
});

/** An order's answer: the Matter it minted and where it stopped. */
export const ORDER_ANSWER = z.looseObject({ type: z.literal('OK'), matterId: z.string(), status: z.string(), matter: Matter.optional() });

/** A workspace as POST /workspaces answers it. */
export const WORKSPACE_ANSWER = z.looseObject({ type: z.literal('OK'), workspace: z.looseObject({ id: z.string(), expiresAt: z.string() }) });

/** A ladder after a tick. */
export const TICK_ANSWER = z.looseObject({ daysUntilDeadline: z.number().int(), alarm: z.string() });
