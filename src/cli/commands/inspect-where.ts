/**
 * `legalwork inspect --where`: where a grain's Matters gather (issue 36,
 * item 4), as tables for a terminal: `GET …/inspection/matters` (or
 * `…/deadlines`, or a firm's `…/enrollments`): per state how many and the
 * one there longest, with its age; the transitions taken and how often; a
 * ladder's facets. With `--state <path>`, that state's records, oldest first,
 * a page at a time (`GET …/inspection/<of>/states/<path>`). `--json` prints
 * the service's answer instead.
 */
import type { components } from '../../client/contract.gen.ts';
import { seg, type ServiceAnswer } from '../../client/service-client.ts';
import { columns, optionalInt, optionalString, UsageError, type Context, type OptionSpec } from '../command.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';

type Population = components['schemas']['Population'];
type Member = components['schemas']['PopulationMember'];

/** What `--of` counts, and the collection its doors are under. */
const OF = { matters: 'Matters', deadlines: 'Deadline Ladders', enrollments: 'Enrollments' } as const;
type Of = keyof typeof OF;

export const WHERE_OPTIONS: Record<string, OptionSpec> = {
  where: { type: 'boolean', description: 'where the grain\'s Matters gather (no <matterId>): per state how many and the oldest, per transition how often' },
  of: { type: 'string', value: `<${Object.keys(OF).join('|')}>`, description: 'with --where, which records (default matters; enrollments need --firm)' },
  firm: { type: 'string', value: '<id>', description: 'with --where --of enrollments, the sandbox firm (fm_…)' },
  state: { type: 'string', value: '<path>', description: 'with --where, list the records in that state (a dotted path), oldest first' },
  after: { type: 'string', value: '<cursor>', description: 'with --state, resume after this cursor (nextAfter of the page before)' },
  limit: { type: 'string', value: '<n>', description: 'with --state, at most this many records (1-500, default 100)' },
};

/** Whole seconds as the two largest units that say it: `3d 4h`, `2h 5m`, `45s`. */
export function age(seconds: number): string {
  const units: Array<[string, number]> = [['d', 86_400], ['h', 3_600], ['m', 60], ['s', 1]];
  const parts: string[] = [];
  let left = seconds;
  for (const [unit, size] of units) {
    const n = Math.floor(left / size);
    if (n > 0 || (unit === 's' && parts.length === 0)) parts.push(`${n}${unit}`);
    left -= n * size;
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

const instant = (at: string) => at.replace('T', ' ').replace(/\.\d+Z$/, 'Z');

/** A table with a header row, each column padded to its widest cell (the last left ragged). */
function table(header: string[], rows: string[][], right: number[] = []): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  return all.map((r) => `  ${r.map((cell, i) => (i === r.length - 1 ? cell : right.includes(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  ')}`.trimEnd());
}

/** The population as text: its states, its transitions, its facets. */
export function renderPopulation(p: Population, where: string): string {
  const counted = p.states.filter((s) => s.count > 0);
  const lines = [
    `${OF[({ matter: 'matters', 'deadline-ladder': 'deadlines', enrollment: 'enrollments' } as const)[p.subject.kind]]} of ${where} on ${p.machine.id}@${p.machine.version}: ${p.total}, as of ${instant(p.asOf)}`,
    `diagram: ${p.machine.diagram}`,
    '',
    ...table(
      ['state', 'count', 'oldest', 'since', 'age'],
      p.states.map((s) => [`${s.path}${s.final ? ' (final)' : ''}${s.tags.length ? ` [${s.tags.join(', ')}]` : ''}`, String(s.count), s.oldest?.id ?? '', s.oldest ? instant(s.oldest.since) : '', s.oldest ? age(s.oldest.ageSeconds) : '']),
      [1],
    ),
  ];
  if (p.facets.length) {
    lines.push('', 'facets (of the records still open):', ...columns(p.facets.map((f): [string, string] => [`${f.name} ${f.count}`, f.description])));
    const byState = counted.filter((s) => s.facets.some((f) => f.count > 0)).map((s): [string, string] => [s.path, s.facets.filter((f) => f.count > 0).map((f) => `${f.name} ${f.count}`).join(', ')]);
    if (byState.length) lines.push('by state:', ...columns(byState.map(([state, facets]) => [state, facets])));
  }
  const taken = p.transitions.filter((t) => t.count > 0);
  lines.push('', taken.length ? `transitions taken (${taken.length} of ${p.transitions.length} edges):` : `transitions taken: none of ${p.transitions.length} edges`, ...taken.map((t) => `  ${String(t.count).padStart(6)}  ${t.edge}`));
  lines.push('', `each state's records: legalwork inspect --where --state <path>${counted[0] ? ` (${counted[0].links.members})` : ''}`, '');
  return lines.join('\n');
}

/** One state's records as text. */
export function renderMembers(members: Member[], state: string, nextAfter: number | null): string {
  const lines = [`in ${state}, oldest first:`, ...table(['id', 'since', 'age', 'version', 'inspect'], members.map((m) => [m.id, instant(m.since), age(m.ageSeconds), String(m.version), m.links.inspect]), [3])];
  if (nextAfter !== null) lines.push('', `more: --after ${nextAfter}`);
  return `${lines.join('\n')}\n`;
}

/** `--where`: the population (or one state's page) of the grain `--workspace` (or `--firm`, or the key's top level) names. */
export async function runWhere(ctx: Context): Promise<ExitCode> {
  const of = (optionalString(ctx.values, 'of') ?? 'matters') as Of;
  if (!(of in OF)) throw new UsageError(`--of must be one of ${Object.keys(OF).join(', ')}, got "${of}"`);
  const firm = optionalString(ctx.values, 'firm');
  if ((of === 'enrollments') !== (firm !== undefined)) throw new UsageError(of === 'enrollments' ? '--of enrollments counts a firm\'s: give --firm <fm_…>' : '--firm applies only with --of enrollments');
  if (firm !== undefined && ctx.prefix !== '') throw new UsageError('--firm and --workspace name two grains: use one');
  const state = optionalString(ctx.values, 'state');
  const after = optionalInt(ctx.values, 'after', { min: 0 });
  const limit = optionalInt(ctx.values, 'limit', { min: 1, max: 500 });
  if (state === undefined && (after !== undefined || limit !== undefined)) throw new UsageError('--after and --limit page one state\'s records: give --state <path>');
  for (const name of ['at', 'follow', 'poll']) if (ctx.values[name] !== undefined) throw new UsageError(`--${name} inspects one Matter; --where counts the grain's`);
  const base = firm !== undefined ? `/firms/${seg(firm)}` : ctx.prefix;
  const where = firm ?? (ctx.prefix ? ctx.prefix.slice('/workspaces/'.length) : 'the top level (your key\'s)');
  const client = ctx.client();
  const json = ctx.values.json === true;
  const answer: ServiceAnswer = state === undefined
    ? await client.request('GET', `${base}/inspection/${of}`)
    : await client.request('GET', `${base}/inspection/${of}/states/${seg(state)}`, { query: { after, limit } });
  if (!answer.ok || json) return ctx.out.answer(answer);
  const body = answer.body as { type: 'OK' | 'EMPTY'; message?: string; population?: Population; results?: Member[]; nextAfter?: number | null };
  if (body.type === 'EMPTY') {
    ctx.out.streams.stdout.write(`${body.message}\n`);
    return EXIT.ok;
  }
  ctx.out.streams.stdout.write(state === undefined ? renderPopulation(body.population!, where) : renderMembers(body.results!, state, body.nextAfter ?? null));
  return EXIT.ok;
}
