/**
 * Where records gather (`src/engine/population.ts`): a grain's Matters,
 * Deadline Ladders or Enrollments on their machine, beside the inspection of
 * one record. `GET …/inspection/matters` and `…/inspection/deadlines` mount
 * on every grain prefix that serves Matters and ladders (the top level,
 * workspaces, tenants); `GET /firms/{firmId}/inspection/enrollments` on the
 * firm. Each has `…/states/{state}`: that state's records, oldest first.
 *
 * At the top level they count the calling key's own records (its grain,
 * `ownGrainOf`); without a key, a typed EMPTY naming the fix, as every
 * top-level list answers. Another key's records are never counted.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { KINDS, populationsOf, type PopulationKind } from '../../engine/population.ts';
import { listed, ok } from '../envelopes.ts';
import { emptyMessage, resolveGrain } from '../grain.ts';
import { param } from '../params.ts';
import { Any, Arr, Nullable, Opt, Str, StrEx, Strict } from '../../schemas/common.ts';
import { Provenance, ref } from '../../schemas/components.ts';
import { EnrollmentStateParams, LadderStateParams, MatterStateParams, MembersQuery, Population, PopulationMember } from '../../schemas/population.ts';
import { door, Listed, Ok } from '../schemas/responses.ts';
import type { Services } from '../services.ts';

/** What a grain holding none answers: a typed EMPTY with the machine, so a page can still draw its diagram. */
const Nobody = Strict({
  type: Type.Literal('EMPTY'),
  results: Arr(Any, { maxItems: 0 }),
  message: Str,
  machine: Strict({ id: StrEx('matter'), version: Type.Integer({ minimum: 1, examples: [1] }), diagram: StrEx('/docs/diagrams/matter.svg') }),
  provenance: Opt(ref(Provenance)),
});

const Gathered = Type.Union([Ok({ population: ref(Population) }), Nobody], { description: 'the population, or a typed EMPTY when the grain holds none (at the top level without a key: naming the fix)' });
const Members = Listed(ref(PopulationMember), { state: StrEx('open.waiting_on_signer', { description: 'the state listed' }), nextAfter: Nullable(Type.Integer({ description: 'pass as `after` for the next page; null: this was the last', examples: [17] })) }, 'the records in the state, oldest first, or a typed EMPTY');

const ABOUT = 'Computed from the row the journal keeps beside each record (its state and when it entered it) through one aggregate over an index, and from transition counts kept in the transaction of every write: never by folding records; both are caches of the journal, rebuilt from it when they do not check out. At the top level, the calling key\'s own records only; without a key, a typed EMPTY naming the fix.';
const PAGED = 'Paged oldest first (by the seq of the fact that entered the state) with `after` and `limit`, as GET /matters pages; a state the machine does not have is refused 422 naming its states.';

/** One machine's two doors: its population, and one state's records. */
interface Family {
  kind: PopulationKind;
  params: TSchema;
  /** What the records are called in the answers' words. */
  noun: string;
  /** What an empty grain says. */
  none: (request: FastifyRequest) => string;
  docs: { population: ReturnType<typeof door>; members: ReturnType<typeof door> };
}

const FAMILIES: Family[] = [
  {
    kind: 'matter',
    params: MatterStateParams,
    noun: 'Matter',
    none: () => 'no Matters yet: POST /matters opens one',
    docs: {
      population: door('Where Matters gather', `The grain's Matters on the Matter machine: per state, how many are in it and the one there longest (its age, its inspector); per transition, how many times Matters took it. States by dotted path and transitions by edge, as the machine's diagram (\`machine.diagram\`) and the inspection name them. ${ABOUT}`, { 200: Gathered }),
      members: door('The Matters in one state', `The grain's Matters in one state of the Matter machine, each with its age there and its inspector. ${PAGED} ${ABOUT}`, { 200: Members }),
    },
  },
  {
    kind: 'deadline-ladder',
    params: LadderStateParams,
    noun: 'Deadline Ladder',
    none: () => 'no Deadline Ladders yet: each Matter opens its Asset\'s',
    docs: {
      population: door('Where Deadline Ladders gather', `The grain's Deadline Ladders on their machine (\`open.counting\`, \`open.terminalRung\`, \`resolved\`), and beside the states its facets: how many open ladders have crossed the notice rung, are vacant (no monitoring owner) and recur. ${ABOUT}`, { 200: Gathered }),
      members: door('The Deadline Ladders in one state', `The grain's Deadline Ladders in one state, each by its Asset id, with its age there and its inspector. ${PAGED} ${ABOUT}`, { 200: Members }),
    },
  },
];

const ENROLLMENTS: Family = {
  kind: 'enrollment',
  params: EnrollmentStateParams,
  noun: 'Enrollment',
  none: (request) => `no member has enrolled: POST /firms/${request.grain}/enrollments executes an Enrollment`,
  docs: {
    population: door('Where a firm\'s Enrollments gather', 'The firm\'s Enrollments (every one, revoked ones included) on the Enrollment machine: per state, how many and the oldest there; per transition, how many times taken. Computed as the Matters\' population is, from rows and counts the journal keeps, never by folding.', { 200: Gathered }),
    members: door('The Enrollments in one state', `The firm's Enrollments in one state, each with its age there; its inspector is its member's current Enrollment's. ${PAGED}`, { 200: Members }),
  },
};

function mount(app: FastifyInstance, services: Services, family: Family) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const populations = populationsOf(services.supervisor);
  const { collection, definition } = KINDS[family.kind];
  const at = `/inspection/${collection}`;

  typed.get(at, { schema: family.docs.population }, async (request) => {
    const population = await populations.of(request.grain, family.kind);
    if (population.total > 0) return ok({ population });
    return { type: 'EMPTY' as const, results: [], message: emptyMessage(request, family.none(request)), machine: population.machine };
  });

  typed.get(`${at}/states/:state`, { schema: { params: family.params, querystring: MembersQuery, ...family.docs.members } }, async (request) => {
    // Each family's own params schema names the state; typed here only as a TSchema.
    const state = param(request, 'state');
    const { after = 0, limit } = request.query;
    // The schema's default fills `limit` before the handler runs; its static type cannot say so.
    const page = await populations.inState(request.grain, family.kind, state, after, limit!);
    const none = `no ${family.noun} is in ${state} of the ${definition.machine.id} machine${after ? ' after that cursor' : ''}`;
    return listed(page.members, emptyMessage(request, none), { state, nextAfter: page.nextAfter });
  });
}

/** The Matters' and ladders' populations, under one grain prefix. */
export async function populationRoutes(fastify: FastifyInstance, { services }: { services: Services }) {
  fastify.addHook('preHandler', resolveGrain(services));
  for (const family of FAMILIES) mount(fastify, services, family);
}

/** A sandbox firm's Enrollments' population. */
export async function enrollmentPopulationRoutes(fastify: FastifyInstance, { services }: { services: Services }) {
  // The firm resolves first, as its other doors do: an unknown or expired one is 404 before anything else.
  fastify.addHook('preValidation', resolveGrain(services));
  await fastify.register(async (firm) => mount(firm, services, ENROLLMENTS), { prefix: '/firms/:firmId' });
}
