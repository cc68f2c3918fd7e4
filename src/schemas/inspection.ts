/**
 * The inspection's components (`GET …/inspection`, `src/engine/inspection.ts`):
 * a Matter's, Deadline Ladder's or Enrollment's path on its machine, its
 * state, the doors open now and every other command with its refusal.
 *
 * This module names the other components it points at by name (`refTo`),
 * so components.ts can list these without a cycle.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Arr, Bool, Enum, EXAMPLE, Nullable, Opt, Str, StrEx, Strict } from './common.ts';
import { EXAMPLE_FACT, factUnion } from './facts.ts';

const refTo = <T = unknown>(name: string, description?: string) => Type.Unsafe<T>({ $ref: `${name}#`, ...(description ? { description } : {}) });
const named = <T extends object>(name: string, schema: T): T & { $id: string } => ({ ...schema, $id: name });

const MATTER_PATH = `/workspaces/${EXAMPLE.workspace}/matters/${EXAMPLE.matter}`;
const EDGE = 'open.review ESCALATE -> open.waiting_on_signer';
const EdgeKeys = (description: string) => Arr(Type.String({ examples: [EDGE] }), { description: `${description}; each edge named \`<from> <EVENT>[ [guard]] -> <to>\` (a targetless edge's target is \`(stays)\` or \`(refuses)\`), as the diagrams and the model tests name it` });

/** One fact of the stream on the machine. Its own fields, closed, and its kind's `data` (`Fact.<kind>`), as a journal entry carries them. */
const StepOwn = Strict({
  step: Type.Integer({ minimum: 1, description: '1 for the opening fact, then each fact in journal order' }),
  seq: Type.Integer({ description: 'the fact\'s seq in its grain (what `?at=` names)' }),
  version: Type.Integer({ minimum: 1, description: 'the stream\'s version once the fact landed' }),
  at: StrEx(EXAMPLE.at),
  kind: Type.Unsafe<string>({ $ref: 'EventKind#' }),
  verb: Opt(Str),
  event: Nullable(Type.String({ description: 'the machine event that caused it (`xstate.init` for the opening); null for a fact journaled beside another, with no cause of its own (a rung\'s reminder)' })),
  from: Nullable(Type.String({ description: 'the state before it, as a dotted path; null for the opening' })),
  to: Type.String({ description: 'the state after it, as a dotted path' }),
  transitions: EdgeKeys('the edges the machine selected for its cause (none for the opening or a fact without a cause)'),
  by: Type.String({ description: 'who committed it: gate, agent, signer, client, member' }),
  actor: Nullable(Type.String({ description: 'the named human (or Signer) who spoke, where one did' })),
  note: Str,
  gigId: Nullable(Type.String({ description: 'the Gig the fact concerns, where one does' })),
  signer: Nullable(Type.String({ description: 'the Signer who answered, where one acted' })),
  provenance: Opt(Strict({
    proposedBy: Opt(Type.String({ description: 'who proposed the write the Gate committed (an advance\'s `by`)' })),
    actor: Opt(Type.String({ description: 'the caller\'s X-Actor, as sent (never verified)' })),
    mandate: Opt(Type.String({ description: 'the caller\'s X-Mandate, as sent (never verified)' })),
  }, 'who asked for the fact, as the journal records it')),
  data: Type.Unsafe<Record<string, unknown>>({ description: 'the fact\'s data, as its kind declares it (`Fact.<kind>`)' }),
});

export const InspectionStep = named('InspectionStep', Type.Unsafe<Static<typeof StepOwn>>({
  ...StepOwn,
  ...factUnion(),
  description: 'one fact of the stream on its machine: the event that caused it, the states before and after, the edges taken, who acted; its `data` is its kind\'s (`Fact.<kind>`)',
  examples: [{ step: 7, seq: 9, version: 7, at: EXAMPLE.at, ...EXAMPLE_FACT, event: 'GIG_ATTESTED', from: 'open.waiting_on_signer', to: 'open.sign', transitions: ['open.waiting_on_signer GIG_ATTESTED [pendingActIsSign] -> open.sign'], actor: EXAMPLE.signer, note: 'reserved act sign attested', gigId: EXAMPLE_FACT.data.gigId, signer: EXAMPLE.signer }],
}));

const DoorFields = {
  command: Type.String({ description: 'a stable name: the door, and the variant where one door takes several (`terminal.withdrawn`, `gig-result.attested`, `resolve.clientNotice`)', examples: ['advance'] }),
  method: Type.Literal('POST'),
  door: Type.String({ description: 'the operation, as the contract names it at the top level', examples: ['/matters/{id}/advance'] }),
  href: Type.String({ description: 'where to send it for this record, under its grain\'s prefix', examples: [`${MATTER_PATH}/advance`] }),
  body: Opt(Type.Object({}, { additionalProperties: true, description: 'the representative body the decider was asked with: what to send (the door\'s own schema is in the contract)', examples: [{}] })),
  note: Opt(Type.String({ description: 'what the door does beyond the decision, where that matters to a caller' })),
};

export const InspectionDoor = named('InspectionDoor', Strict({
  ...DoorFields,
  sends: Arr(Type.String({ examples: ['ESCALATE'] }), { description: 'the machine events the decider sends, in order' }),
  transitions: EdgeKeys('the edges they take'),
}, 'a command the decider beside the machine accepts now, with the events it sends and the edges they take'));

export const InspectionRefusal = named('InspectionRefusal', Strict({
  ...DoorFields,
  command: Type.String({ description: DoorFields.command.description, examples: ['gig-result.attested'] }),
  door: Type.String({ description: DoorFields.door.description, examples: ['/matters/{id}/gig-result'] }),
  href: Type.String({ description: DoorFields.href.description, examples: [`${MATTER_PATH}/gig-result`] }),
  status: Type.Integer({ description: 'the status the door answers it with', examples: [409] }),
  code: Type.String({ description: 'the refusal\'s code, one of the catalog\'s (as the door would answer it)', examples: ['NO_PENDING_GIG'] }),
  error: Type.String({ description: 'the refusal, worded as the door would word it', examples: [`Matter ${EXAMPLE.matter} holds no pending Gig (it is review)`] }),
  fix: Opt(Type.String({ description: 'what to do instead' })),
  rule: Opt(Type.String({ description: 'the rule that refuses, where the catalog names one' })),
  transitions: EdgeKeys('the edges the machine declares for the command\'s event from this state: one declared only to refuse it, or the one the refusal stands in front of (none when it declares none)'),
}, 'a command the decider refuses now, with the refusal the door would answer'));

const Links = Strict({
  self: Type.String({ description: 'this inspection', examples: [`${MATTER_PATH}/inspection`] }),
  page: Type.String({ description: 'the inspector page that draws it (HTML)', examples: [`${MATTER_PATH}/inspect`] }),
  entity: Type.String({ description: 'the record\'s own read', examples: [MATTER_PATH] }),
  stream: Type.String({ description: 'the event stream (Server-Sent Events) of the grain the record lives in: its facts arrive there as they commit (at the top level, the owner key\'s stream)', examples: [`/workspaces/${EXAMPLE.workspace}/events/stream`] }),
});

export const Inspection = named('Inspection', Strict({
  subject: Strict({
    kind: Enum(['matter', 'deadline-ladder', 'enrollment'] as const, 'what is inspected'),
    id: Type.String({ description: 'the Matter id, the Asset id of a ladder, or the Enrollment id', examples: [EXAMPLE.matter] }),
    links: Links,
  }),
  machine: Strict({
    id: Type.String({ examples: ['matter'] }),
    version: Type.Integer({ minimum: 1, description: 'the machine version every fact of the stream is folded by', examples: [1] }),
    diagram: Type.String({ description: 'the machine\'s generated diagram (SVG), as `npm run diagrams` draws it', examples: ['/docs/diagrams/matter.svg'] }),
  }),
  at: Strict({
    seq: Type.Integer({ description: 'the fact the answer is as of', examples: [8] }),
    version: Type.Integer({ minimum: 1, examples: [6] }),
    latest: Type.Boolean({ description: 'it is the stream\'s head: the answer is as of now' }),
  }),
  head: Strict({ seq: Type.Integer({ examples: [8] }), version: Type.Integer({ minimum: 1, examples: [6] }) }, 'the stream\'s head now'),
  state: Strict({
    path: Type.String({ description: 'the state, as a dotted path of the machine', examples: ['open.review'] }),
    status: Type.String({ description: 'the state as the record\'s own JSON names it (a Matter\'s `status`, a ladder\'s, an Enrollment\'s)', examples: ['review'] }),
    final: Bool,
    tags: Arr(Str, { description: 'the state\'s tags (who it waits on)' }),
  }),
  matter: Opt(refTo('Matter', 'a Matter\'s own JSON as of `at`')),
  ladder: Opt(refTo('DeadlineLadder', 'a ladder\'s own JSON as of `at`')),
  enrollment: Opt(refTo('Enrollment', 'an Enrollment\'s own JSON as of `at`')),
  path: Arr(refTo('InspectionStep'), { description: 'every fact of the stream up to `at`, oldest first' }),
  open: Arr(refTo('InspectionDoor'), { description: 'every command the decider accepts now, in the order the decider declares them' }),
  refused: Arr(refTo('InspectionRefusal'), { description: 'every other command, with the refusal the decider gives now' }),
}, 'one record on its machine: its path, its state (as of now, or of an earlier fact), the commands open now and every other with its refusal'));

export const INSPECTION_COMPONENTS = [InspectionStep, InspectionDoor, InspectionRefusal, Inspection];

/** `?at=<seq>`: time travel. */
export const InspectionQuery = Strict({
  at: Opt(Type.Integer({
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'a seq of the grain (a fact\'s `seq` in the journal, the tail or this answer\'s `path`): the answer as of the record\'s last fact at or before it (past its head: as of now); before the record opened: 422 INSPECTION_BEFORE_OPENING',
    examples: [1_000_000],
  })),
});
