/** Request schemas of the Deadline Ladder doors (`/deadlines/{assetId}/...`). */
import { Type } from '@sinclair/typebox';
import { TERMINAL_OUTCOMES } from '../../machines/deadline-ladder.ts';
import { FIXTURE } from '../domain/fixtures.ts';
import { Enum, Id, Strict, Text } from './common.ts';

/** Path parameters are not strict: a grain prefix adds its own. */
export const DeadlineParams = Type.Object({ assetId: Id });

/** Longest tick accepted: a century of days. */
const MAX_TICK_DAYS = 36_600;

export const TickBody = Strict(
  { days: Type.Integer({ minimum: 1, maximum: MAX_TICK_DAYS, description: 'whole days to move the ladder toward its deadline; at most the days remaining' }) },
  { description: 'an explicit tick: ladders never move on wall time', examples: [{ days: 1 }] },
);

export const AckBody = Strict({ actor: Text(200) }, { description: 'the named human acknowledging today\'s rung (a ladder with no ack due today answers 409 NO_ACK_DUE; an Asset titled with the ack-due fixture prefix has one from the first read)', examples: [{ actor: 'Ada Lovelace' }] });

export const MonitorBody = Strict({ signerId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$', description: 'a Signer id, or "platform"' }) }, { description: 'names the monitoring owner', examples: [{ signerId: FIXTURE.eligibleSigner }] });

export const SatisfyBody = Strict({ evidenceRef: Text(500) }, { description: 'the evidence that satisfies the obligation (a receipt, a docket entry, a document id)', examples: [{ evidenceRef: 'uspto-receipt:63/123,456' }] });

export const ResolveBody = Strict(
  { outcome: Enum(TERMINAL_OUTCOMES, 'one of the four terminal outcomes') },
  { description: 'the permanent closure at the terminal rung (a ladder not at its terminal rung answers 409)', examples: [{ outcome: 'clientNotice' }] },
);
