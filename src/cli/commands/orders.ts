/** `legalwork orders file-provisional`: the one-call order of a provisional patent filing. */
import { optionalNumber, optionalString, requiredString, UsageError, type Command } from '../command.ts';
import { PROVISIONAL_OFFER } from '../../domain/fixtures.ts';

/** The mint an order names when the caller names none. */
export const CLI_MINT = 'legalwork-cli';

const fileProvisional: Command = {
  path: ['orders', 'file-provisional'],
  writes: true,
  summary: 'Order a provisional patent filing.',
  description: [
    'POST /orders. Mints a patent-rail provisional Matter and advances it until it',
    'waits on a Signer (waiting_on_signer) or can go no further; the filing itself',
    'is a reserved act and never resolves in-band.',
  ].join('\n'),
  grain: true,
  remote: true,
  options: {
    title: { type: 'string', value: '<title>', description: 'the invention title (required)' },
    inventor: { type: 'string', value: '<name>', description: 'the inventor, who is the Client (required)' },
    'list-fee': { type: 'string', value: '<usd>', description: 'listFeeUsd (required)' },
    mint: { type: 'string', value: '<name>', description: `the ordering mint (default ${CLI_MINT})` },
    offer: { type: 'string', value: '<id>', description: `the offer ordered (default ${PROVISIONAL_OFFER})` },
    'client-state': { type: 'string', value: '<XX>', description: 'clientState (two-letter region code)' },
  },
  async run(ctx) {
    const v = ctx.values;
    const listFeeUsd = optionalNumber(v, 'list-fee');
    if (listFeeUsd === undefined) throw new UsageError('--list-fee is required');
    const body = {
      mint: optionalString(v, 'mint') ?? CLI_MINT,
      offer: optionalString(v, 'offer') ?? PROVISIONAL_OFFER,
      title: requiredString(v, 'title'),
      inventor: requiredString(v, 'inventor'),
      listFeeUsd,
      ...(v['client-state'] !== undefined ? { clientState: v['client-state'] as string } : {}),
    };
    return ctx.out.answer(await ctx.client().request<'/orders', 'post'>('POST', `${ctx.prefix}/orders`, { body }));
  },
};

export const orderCommands = [fileProvisional];
