/**
 * The kinds of sandbox grain (workspace, tenant, firm) and the prefix each
 * one's id carries, so a grain's kind is read off its id. Below the engine,
 * where both the grains that open them (`engine/workspaces.ts`) and the one
 * answer to which records a request reaches (`engine/grains.ts`) read them.
 */
import type { IdPrefix } from './ids.ts';

export type GrainKind = 'workspace' | 'tenant' | 'firm';

/** The id prefix of each kind of grain: a grain's kind is read off its id. */
export const GRAIN_ID_PREFIX: Record<GrainKind, IdPrefix> = { workspace: 'ws', tenant: 'tn', firm: 'fm' };
