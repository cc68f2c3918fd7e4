/**
 * Sandbox firms: open one (per-caller bound), read it, and its member-executed
 * Enrollments, derived roster, fixtures, routing preferences and remittance
 * view. No door here signs, claims, attests or scores.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { FIRM_FIXTURE_LISTING, ROSTER_PROBE } from '../../domain/firm-members.ts';
import { enrollmentRow } from '../../engine/firms.ts';
import { grainView } from '../../engine/workspaces.ts';
import { empty, listed, ok } from '../envelopes.ts';
import { resolveGrain } from '../grain.ts';
import { admitCreation, SANDBOX_PROVISIONING } from '../sandbox.ts';
import { Type } from '@sinclair/typebox';
import { IfMatchHeaders, Strict, Text } from '../../schemas/common.ts';
import { actorKeyRefusal, EnrollmentBody, FirmMemberParams, FirmParams, FirmRoutingBody, meritsKeyRefusal } from '../../schemas/grains.ts';
import { FirmDoors as R } from '../schemas/responses.ts';
import type { Services } from '../services.ts';
import { firmConflictRoutes } from './conflicts.ts';
import { optionalBody } from '../json-body.ts';
import { expectedVersionOf, tagVersion } from '../versions.ts';

const RevokeBody = Strict({ reason: Type.Optional(Text(500)) }, { description: 'optional: why the member revokes', examples: [{ reason: 'leaving the firm' }] });

export async function firmRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { firms } = services;

  app.post('/firms', { config: { keyless: SANDBOX_PROVISIONING }, schema: R.open }, async (request, reply) => {
    await admitCreation(services, 'firm', request, reply);
    const grain = await firms.open();
    request.grain = grain.record.id;
    return reply.status(201).send(ok({ firm: { ...grainView(firms, grain.record), enrollments: { enrolled: 0, revoked: 0 } } }));
  });

  // Every door of one firm: the firm resolves first, so an unknown or expired one is 404 before any body check.
  await app.register(async (scope) => {
    const firm = scope.withTypeProvider<TypeBoxTypeProvider>();
    firm.addHook('preValidation', resolveGrain(services));

    firm.get('/firms/:firmId', { schema: { params: FirmParams, ...R.get } }, async (request) => {
      const grain = request.sandbox!;
      return ok({ firm: { ...grainView(firms, grain.record), enrollments: await firms.counts(grain.record.id) } });
    });

    firm.get('/firms/:firmId/enrollments', { schema: { params: FirmParams, ...R.enrollments } }, async (request) => {
      const rows = (await firms.currentEnrollments(request.grain)).map(enrollmentRow);
      return listed(rows, `no member has enrolled: POST /firms/${request.grain}/enrollments {"memberId": …} executes an Enrollment (members: GET /firms/${request.grain}/fixtures)`, { firmId: request.grain });
    });

    firm.post('/firms/:firmId/enrollments', { schema: { params: FirmParams, headers: IfMatchHeaders, body: EnrollmentBody, ...R.enroll } }, async (request, reply) => {
      const body = request.body;
      const result = await firms.enroll(request.grain, body.memberId, body.grants, expectedVersionOf(request));
      tagVersion(reply, result.entity.version);
      return reply.status(201).send(ok({ act: result.act, enrollment: enrollmentRow(result.entity), ceremony: result.ceremony, ...('then' in result && result.then ? { then: result.then } : {}) }));
    });

    firm.post('/firms/:firmId/enrollments/:memberId/revoke', {
      schema: { params: FirmMemberParams, headers: IfMatchHeaders, body: RevokeBody, ...R.revoke },
      preValidation: optionalBody,
    }, async (request, reply) => {
      const { entity, revocation } = await firms.revoke(request.grain, request.params.memberId, expectedVersionOf(request));
      tagVersion(reply, entity.version);
      return ok({ enrollment: enrollmentRow(entity), revocation });
    });

    firm.get('/firms/:firmId/roster', { schema: { params: FirmParams, ...R.roster } }, async (request) => {
      const { rows, blanked } = await firms.roster(request.grain);
      const extra = { firmId: request.grain, probe: ROSTER_PROBE, blanked };
      return rows.length ? ok({ results: rows, ...extra }) : empty(`no member holds a live Enrollment with the roster grant: POST /firms/${request.grain}/enrollments {"memberId": "mb_fixture_eligible", "grants": ["roster"]}`, { ...extra, fix: `POST /firms/${request.grain}/enrollments` });
    });

    firm.get('/firms/:firmId/fixtures', { schema: { params: FirmParams, ...R.fixtures } }, async () => ok({ fixtures: FIRM_FIXTURE_LISTING }));

    firm.get('/firms/:firmId/routing', { schema: { params: FirmParams, ...R.routing } }, async (request) => {
      const declared = await firms.routingOf(request.sandbox!);
      return declared ? ok({ firmId: request.grain, ...declared }) : empty(`no routing preferences declared: PUT /firms/${request.grain}/routing`, { firmId: request.grain });
    });

    firm.put('/firms/:firmId/routing', {
      schema: { params: FirmParams, body: FirmRoutingBody, ...R.declareRouting },
      // Ahead of the schema, so a merits-bearing or actor-shaped key is refused by name.
      preValidation: async (request: FastifyRequest) => {
        const refusal = meritsKeyRefusal(request.body, 'firm') ?? actorKeyRefusal(request.body);
        if (refusal) throw refusal;
      },
    }, async (request) => {
      const { routing, seq } = await firms.declareRouting(request.grain, request.body);
      return ok({ firmId: request.grain, routing, declaredSeq: seq });
    });

    firm.get('/firms/:firmId/remittances', { schema: { params: FirmParams, ...R.remittances } }, async (request) => {
      const { rows, totals } = await firms.remittances(request.grain);
      const note = 'aggregation only: each line\'s Merchant of Record is the platform (patent rail) or the individual Signer (state rail), never the firm';
      return rows.length ? ok({ firmId: request.grain, results: rows, totals, merchantOfRecord: note, synthetic: true as const }) : empty(`no member has granted remittance: a member executes it with POST /firms/${request.grain}/enrollments {"memberId": …, "grants": ["remittance"]}`, { firmId: request.grain });
    });

    // The firm's own conflicts ledger and prescreen, behind the same resolution.
    await firm.register(firmConflictRoutes, { services });
  });
}
