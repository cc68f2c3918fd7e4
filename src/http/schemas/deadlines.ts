/** Request schemas of the Deadline Ladder doors (`/deadlines/{assetId}/...`). */
import { Type } from '@sinclair/typebox';
import { TERMINAL_OUTCOMES } from '../../../machines/deadline-ladder.ts';
import { Enum, Id, Strict, Text } from './common.ts';

/** Path parameters are not strict: a grain prefix adds its own. */
export const DeadlineParams = Type.Object({ assetId: Id });

/** Longest tick accepted: a century of days. */
const MAX_TICK_DAYS = 36_600;

export const TickBody = Strict(
  { days: Type.Integer({ minimum: 1, maximum: MAX_TICK_DAYS, description: 'whole days to move the ladder toward its deadline; at most the days remaining' }) },
  'an explicit tick: ladders never move on wall time',
);

export const AckBody = Strict({ actor: Text(200) }, 'the named human acknowledging today\'s rung');

export const MonitorBody = Strict({ signerId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$', description: 'a Signer id, or "platform"' }) }, 'names the monitoring owner');

export const SatisfyBody = Strict({ evidenceRef: Text(500) }, 'the evidence that satisfies the obligation (a receipt, a docket entry, a document id)');

export const ResolveBody = Strict(
  { outcome: Enum(TERMINAL_OUTCOMES, 'one of the four terminal outcomes') },
  'the permanent closure at the terminal rung',
);
