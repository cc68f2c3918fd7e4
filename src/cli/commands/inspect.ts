/**
 * `legalwork inspect <matterId>`: a Matter on its machine, for a terminal
 * (`GET /matters/{id}/inspection`): the path it took, its state, the doors
 * open now and every other command with the refusal it would get. `--json`
 * prints the answer as the service gives it; `--at <seq>` answers as of an
 * earlier fact; `--follow` prints again whenever a fact of the Matter
 * commits (the workspace's event stream; at the top level, asked on a clock).
 * An Asset id (`as_…`) inspects the Asset's Deadline Ladder instead.
 * `--where` (no id) counts the grain's instead: where its Matters gather
 * (`inspect-where.ts`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { components } from '../../client/contract.gen.ts';
import { seg, type ServiceClient } from '../../client/service-client.ts';
import { optionalInt, UsageError, type Command, type Context } from '../command.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { followEvents } from '../follow.ts';
import { getIfChanged } from '../conditional-get.ts';
import { runWhere, WHERE_OPTIONS } from './inspect-where.ts';

type Inspection = components['schemas']['Inspection'];
type Step = components['schemas']['InspectionStep'];

const DEFAULT_POLL_MS = 2_000;

/** `  12  seq 40  2026-11-27 09:00:00  stage sign   ADVANCE  open.sign -> open.waiting_on_signer  by gate (proposed by agent)` */
function stepLine(s: Step): string {
  const what = `${s.kind}${s.verb ? ` ${s.verb}` : ''}`;
  const move = s.from === null ? `(opened) -> ${s.to}` : s.from === s.to ? `stays ${s.to}` : `${s.from} -> ${s.to}`;
  const who = [`by ${s.by}`, s.actor && s.actor !== s.by ? s.actor : null, s.provenance?.proposedBy ? `proposed by ${s.provenance.proposedBy}` : null, s.gigId ? `Gig ${s.gigId}` : null, s.signer && s.signer !== s.actor ? `Signer ${s.signer}` : null].filter(Boolean).join(', ');
  return `  ${String(s.step).padStart(4)}  seq ${String(s.seq).padEnd(6)} ${s.at.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}  ${what.padEnd(24)} ${(s.event ?? '(no cause)').padEnd(17)} ${move.padEnd(52)} ${who}`;
}

/** The inspection as text: what it is, as of when, where it stands, how it got there, and what it may do next. */
export function renderInspection(i: Inspection, steps: Step[] = i.path): string {
  const subject = i.subject.kind === 'matter' ? `Matter ${i.subject.id}` : i.subject.kind === 'deadline-ladder' ? `Deadline Ladder of Asset ${i.subject.id}` : `Enrollment ${i.subject.id}`;
  const when = i.at.latest ? `as of seq ${i.at.seq} (version ${i.at.version}, now)` : `as of seq ${i.at.seq} (version ${i.at.version}; now it is at seq ${i.head.seq}, version ${i.head.version})`;
  const lines = [
    `${subject} on ${i.machine.id}@${i.machine.version}, ${when}`,
    `state: ${i.state.path} (${i.state.status}${i.state.final ? ', final' : ''})${i.state.tags.length ? ` [${i.state.tags.join(', ')}]` : ''}`,
    `page: ${i.subject.links.page}   diagram: ${i.machine.diagram}`,
    '',
    steps.length === i.path.length ? `path (${i.path.length} facts):` : `path (${steps.length} new of ${i.path.length} facts):`,
    ...steps.map(stepLine),
    '',
    i.open.length ? `open now (${i.open.length}):` : 'open now: nothing (every command is refused)',
    ...i.open.flatMap((d) => [
      `  ${d.command.padEnd(24)} ${d.method} ${d.href}${d.body && Object.keys(d.body).length ? `  ${JSON.stringify(d.body)}` : ''}`,
      `  ${''.padEnd(24)} sends ${d.sends.join(', ')}${d.transitions.length ? `: ${d.transitions.join('; ')}` : ''}`,
    ]),
    '',
    i.refused.length ? `refused now (${i.refused.length}):` : 'refused now: nothing',
    ...i.refused.flatMap((d) => [`  ${d.command.padEnd(24)} ${d.status} ${d.code}: ${d.error}`, ...(d.fix ? [`  ${''.padEnd(24)} fix: ${d.fix}`] : [])]),
    '',
  ];
  return lines.join('\n');
}

/** The inspection's path for an id: a Matter's, or an Asset's ladder's. */
const inspectionPath = (ctx: Context, id: string) => `${ctx.prefix}/${id.startsWith('as_') ? 'deadlines' : 'matters'}/${seg(id)}/inspection`;

/** The inspection, and its ETag: following sends it back as If-None-Match, so an unchanged Matter costs a 304 and no body. */
const fetchInspection = (client: ServiceClient, path: string, at: number | undefined) => getIfChanged(client, path, null, { query: { at } });
const fetchIfChanged = (client: ServiceClient, path: string, etag: string | null) => getIfChanged(client, path, etag);

const inspect: Command = {
  path: ['inspect'],
  summary: 'A Matter on its machine: its path, its state, what it may do now and why not the rest (--where: where the grain\'s Matters gather).',
  description: [
    'GET /matters/{matterId}/inspection, printed as text: the Matter\'s machine, its',
    'state, the path it took (each fact with the event that caused it, the states',
    'before and after, who acted, the Gig and Signer), the doors open now (each',
    'with its method, path and body) and every other command with the refusal it',
    'would get (code, reason, fix): asked of the same decider that decides real',
    'commands. --json prints the service\'s JSON instead. --at <seq> answers as of',
    'that fact (time travel). --follow prints again each time a fact of the Matter',
    'commits (text: the new facts and the doors; --json: one inspection per line):',
    'in a workspace it follows the workspace\'s event stream; at the top level,',
    'where a Matter\'s events reach only its owner key\'s stream, it asks every',
    '--poll ms, sending the last answer\'s ETag as If-None-Match (an unchanged',
    'Matter costs a 304 with no body). Stop with Ctrl-C (exit 0). An Asset id',
    '(as_…) inspects its Deadline Ladder.',
    'The page that draws it on the diagram: links.page (GET …/inspect).',
    '',
    '--where (instead of an id): where the grain\'s Matters gather, as tables',
    '(GET …/inspection/matters): per state how many are in it and the one there',
    'longest with its age, the transitions taken and how often. --of deadlines',
    'counts the Deadline Ladders (with their facets: notice, vacant, recurring),',
    '--of enrollments a firm\'s Enrollments (--firm <fm_…>). --state <path> lists',
    'that state\'s records, oldest first (--after, --limit page them). At the top',
    'level it counts LEGALWORK_KEY\'s own records. --json prints the answer.',
  ].join('\n'),
  args: [{ name: 'matterId', description: 'the Matter id (mt_…), or an Asset id (as_…) for its Deadline Ladder; none with --where', optional: true }],
  grain: true,
  remote: true,
  options: {
    json: { type: 'boolean', description: 'print the inspection as JSON (the service\'s answer) instead of text' },
    at: { type: 'string', value: '<seq>', description: 'as of that fact: the Matter\'s last fact at or before this seq' },
    follow: { type: 'boolean', short: 'f', description: 'keep printing as facts of the Matter commit' },
    poll: { type: 'string', value: '<ms>', description: `with --follow at the top level, how often to ask (default ${DEFAULT_POLL_MS})` },
    ...WHERE_OPTIONS,
  },
  async run(ctx) {
    if (ctx.values.where === true) {
      if (ctx.args.matterId !== undefined) throw new UsageError('--where counts the grain\'s Matters: give no <matterId>');
      return runWhere(ctx);
    }
    const stray = Object.keys(WHERE_OPTIONS).find((name) => ctx.values[name] !== undefined);
    if (stray) throw new UsageError(`--${stray} applies only with --where`);
    if (ctx.args.matterId === undefined) throw new UsageError('missing <matterId> (or --where, for where the grain\'s Matters gather)');
    const at = optionalInt(ctx.values, 'at', { min: 0 });
    const follow = ctx.values.follow === true;
    if (follow && at !== undefined) throw new UsageError('--at answers as of one fact; --follow follows the Matter as it moves on: use one');
    if (!follow && ctx.values.poll !== undefined) throw new UsageError('--poll applies only with --follow');
    const pollMs = optionalInt(ctx.values, 'poll', { min: 100 }) ?? DEFAULT_POLL_MS;
    const json = ctx.values.json === true;
    const client = ctx.client();
    const path = inspectionPath(ctx, ctx.args.matterId);
    const { answer: first, etag: firstEtag } = await fetchInspection(client, path, at);
    if (!first.ok) return ctx.out.answer(first);
    let shown = (first.body as { inspection: Inspection }).inspection;
    let etag = firstEtag;
    /** JSON: the service's answer as given; text: the new facts (all, the first time), the state and the doors. */
    const print = (body: unknown, now: Inspection, steps?: Step[]) => (json ? ctx.out.json(body) : ctx.out.streams.stdout.write(renderInspection(now, steps)));
    print(first.body, shown);
    if (!follow) return EXIT.ok;

    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    let ended: ExitCode | null = null;
    /** Asks again and prints when the head moved; a refusal (the grain expired) ends following. One at a time, in order. */
    let asking: Promise<void> = Promise.resolve();
    const refresh = () =>
      (asking = asking.then(async () => {
        if (ended !== null) return;
        const polled = await fetchIfChanged(client, path, etag).catch((error: unknown) => {
          ctx.out.progress(`cannot reach the service (${(error as Error).message}); asking again at the next fact`);
          return null;
        });
        // Not reached, or the same answer as the one shown (304: nothing sent, nothing to compare).
        if (!polled || polled.unchanged) return;
        const again = polled.answer;
        if (!again.ok) {
          ended = ctx.out.answer(again);
          stop.abort();
          return;
        }
        etag = polled.etag;
        const now = (again.body as { inspection: Inspection }).inspection;
        if (now.head.seq === shown.head.seq) return;
        if (!json) ctx.out.streams.stdout.write('\n');
        print(again.body, now, now.path.filter((s) => s.seq > shown.head.seq));
        shown = now;
      }));
    try {
      if (ctx.prefix !== '') {
        // In a sandbox grain its event stream carries every fact of the Matter as it commits.
        const followed = await followEvents({
          client,
          path: shown.subject.links.stream,
          after: shown.head.seq,
          signal: stop.signal,
          onEvent: (event) => {
            if ((event as { subject?: string }).subject === shown.subject.id) void refresh();
          },
          progress: (message) => ctx.out.progress(message),
        });
        await asking;
        if (ended !== null) return ended;
        if (followed.outcome === 'stopped') return EXIT.ok;
        if (followed.outcome === 'unreachable') return ctx.out.unreachable(followed.error);
        return ctx.out.answer(followed.answer);
      }
      // At the top level a Matter's facts reach only its owner key's stream, so the inspection is asked on a clock.
      ctx.out.progress(`following ${path} (asking every ${pollMs} ms: at the top level a Matter's events reach only its owner key's stream)`);
      while (!stop.signal.aborted) {
        await sleep(pollMs, undefined, { signal: stop.signal }).catch(() => undefined);
        if (!stop.signal.aborted) await refresh();
      }
      await asking;
      return ended ?? EXIT.ok;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};

export const inspectCommands = [inspect];
