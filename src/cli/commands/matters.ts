/** `legalwork matters list|get|create|advance`: the Matter doors. */
import { CONSUMER_PATTERNS, MATTER_TYPES } from '../../domain/matter-types.ts';
import { optionalInt, optionalNumber, optionalString, type Command } from '../command.ts';
import { readJsonObject } from '../json-input.ts';
import { seg, type RequestBody } from '../../client/service-client.ts';

const matterArg = [{ name: 'matterId', description: 'the Matter id (mt_…)' }];

const list: Command = {
  path: ['matters', 'list'],
  summary: 'List the Matters of the top level or of a workspace.',
  description: 'GET /matters. Answers the OK envelope with results, or a typed EMPTY\nwhen there are none (or none match --filter / --tag).',
  grain: true,
  remote: true,
  options: {
    filter: { type: 'string', value: '<offer>', description: 'only Matters ordered through this offer' },
    tag: { type: 'string', value: '<matterType>', description: 'only Matters of this matter type' },
    after: { type: 'string', value: '<cursor>', description: 'resume a listing after this cursor (nextAfter of the previous page)' },
    limit: { type: 'string', value: '<n>', description: 'at most this many Matters (1-500, default 100)' },
  },
  async run(ctx) {
    const query = {
      filter: optionalString(ctx.values, 'filter'),
      tag: optionalString(ctx.values, 'tag'),
      after: optionalInt(ctx.values, 'after', { min: 0 }),
      limit: optionalInt(ctx.values, 'limit', { min: 1, max: 500 }),
    };
    return ctx.out.answer(await ctx.client().request<'/matters', 'get'>('GET', `${ctx.prefix}/matters`, { query }));
  },
};

const get: Command = {
  path: ['matters', 'get'],
  summary: 'Read one Matter with its Asset and journal.',
  description: 'GET /matters/{matterId}.',
  args: matterArg,
  grain: true,
  remote: true,
  async run(ctx) {
    return ctx.out.answer(await ctx.client().request<'/matters/{id}', 'get'>('GET', `${ctx.prefix}/matters/${seg(ctx.args.matterId)}`));
  },
};

const create: Command = {
  path: ['matters', 'create'],
  writes: true,
  summary: 'Open a Matter (in intake) and mint its Asset.',
  description: [
    'POST /matters. The body is --body (JSON inline, @file or - for stdin);',
    'the flags below fill or override its common fields.',
    `matterType is required, one of: ${MATTER_TYPES.join(', ')}`,
    '(the service refuses anything else with 400).',
    'On the top level a write needs a key (LEGALWORK_KEY); inside a workspace it does not.',
  ].join('\n'),
  grain: true,
  remote: true,
  options: {
    body: { type: 'string', value: '<json|@file|->', description: 'the creation body as JSON' },
    type: { type: 'string', value: '<matterType>', description: 'matterType' },
    'client-name': { type: 'string', value: '<name>', description: 'client.name (a fixture client name drives the sandbox supply network)' },
    title: { type: 'string', value: '<title>', description: 'asset.title (a [fixture:…] prefix selects a fixture ladder)' },
    'asset-kind': { type: 'string', value: '<kind>', description: 'asset.kind' },
    pattern: { type: 'string', value: `<${CONSUMER_PATTERNS.join('|')}>`, description: 'consumerPattern' },
    'list-fee': { type: 'string', value: '<usd>', description: 'listFeeUsd' },
    'client-state': { type: 'string', value: '<XX>', description: 'clientState (two-letter region code)' },
    'adverse-party': { type: 'string', multiple: true, value: '<name>', description: 'an adverse party' },
  },
  async run(ctx) {
    const v = ctx.values;
    const body: Record<string, unknown> = v.body !== undefined ? await readJsonObject(v.body as string, '--body') : {};
    const set = (key: string, value: unknown) => value !== undefined && (body[key] = value);
    set('matterType', optionalString(v, 'type'));
    set('consumerPattern', optionalString(v, 'pattern'));
    set('listFeeUsd', optionalNumber(v, 'list-fee'));
    set('clientState', optionalString(v, 'client-state'));
    if (v['adverse-party'] !== undefined) body.adverseParties = v['adverse-party'];
    if (v['client-name'] !== undefined) body.client = { ...asObject(body.client), name: v['client-name'] };
    if (v.title !== undefined || v['asset-kind'] !== undefined) {
      body.asset = { ...asObject(body.asset), ...(v.title !== undefined ? { title: v.title } : {}), ...(v['asset-kind'] !== undefined ? { kind: v['asset-kind'] } : {}) };
    }
    // The caller's JSON goes as given: the service validates it and words what it refuses.
    return ctx.out.answer(await ctx.client().request<'/matters', 'post'>('POST', `${ctx.prefix}/matters`, { body: body as RequestBody<'/matters', 'post'> }));
  },
};

const advance: Command = {
  path: ['matters', 'advance'],
  writes: true,
  summary: 'Advance a Matter by one Stage Verb.',
  description: [
    'POST /matters/{matterId}/advance. Answers committed{advanceTo, by}, or',
    'escalated{reservedAct, gigId} when the next act is reserved: the Matter then',
    'waits on a Signer (waiting_on_signer); a reserved act never resolves in-band.',
  ].join('\n'),
  args: matterArg,
  grain: true,
  remote: true,
  options: {
    note: { type: 'string', value: '<text>', description: 'a note journaled with the advance' },
    merits: { type: 'string', value: '<json|@file|->', description: 'the merits of the Proposal, e.g. {"settlementUsd": 5000}' },
  },
  async run(ctx) {
    const body: RequestBody<'/matters/{id}/advance', 'post'> = {};
    if (ctx.values.note !== undefined) body.note = ctx.values.note as string;
    if (ctx.values.merits !== undefined) body.merits = await readJsonObject(ctx.values.merits as string, '--merits');
    return ctx.out.answer(await ctx.client().request<'/matters/{id}/advance', 'post'>('POST', `${ctx.prefix}/matters/${seg(ctx.args.matterId)}/advance`, { body }));
  },
};

function asObject(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export const matterCommands = [list, get, create, advance];
