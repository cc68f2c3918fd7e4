/**
 * The reply check: every JSON reply is held to the schema its route declares
 * for that status, before the schema-compiled serializer writes it. That
 * serializer (fast-json-stringify) silently drops a field its schema does not
 * declare, so without this check an incomplete schema would lose a field with
 * no error; with it, the reply is a 500 naming the violation and the test that
 * produced it fails.
 *
 * On when LEGALWORK_REPLY_CHECK=1 (the test suite sets it for every test and
 * every service process a test spawns); off in production, where validating
 * each reply would cost what the compiled serializer saves.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { declaredCodes, UNROUTED } from './declared-refusals.ts';
import { COMPONENTS } from '../schemas/components.ts';

const replyCheckOn = () => process.env.LEGALWORK_REPLY_CHECK === '1';

/** The schema a route declares for a status (every status is declared exactly: there is no catch-all). */
function declaredFor(response: Record<string, unknown> | undefined, status: number): unknown {
  const declared = response?.[status] as { content?: Record<string, { schema: unknown }> } | undefined;
  // A status documented per media type (the event stream's JSON or SSE answer) is checked as JSON.
  return declared?.content ? declared.content['application/json']?.schema : declared;
}

/** A reply its schema would not write. Shaped as a refusal body too: Fastify writes a hook's error with the route's 500 schema. */
export class ReplyViolation extends Error {
  readonly statusCode = 500;
  readonly code = 'INTERNAL';
  readonly error: string;
  constructor(readonly where: string, readonly errors: unknown) {
    super(`the reply of ${where} breaks its declared schema: ${JSON.stringify(errors)}`);
    this.error = this.message;
  }
}

/**
 * One validator per distinct schema, for the whole process (tests build many
 * apps over the same contract): found by the schema object a route holds,
 * else by its text. A union the contract discriminates (a fact by its
 * `kind`) is checked against the one branch its tag names, not every branch.
 */
let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();
const bySchema = new WeakMap<object, ValidateFunction>();
function validatorOf(schema: object): ValidateFunction {
  let validate = bySchema.get(schema);
  if (validate) return validate;
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, discriminator: true, validateFormats: false });
    for (const component of COMPONENTS) ajv.addSchema(withoutMappings(component));
  }
  const key = JSON.stringify(schema);
  validate = compiled.get(key);
  if (!validate) compiled.set(key, (validate = ajv.compile(withoutMappings(schema))));
  bySchema.set(schema, validate);
  return validate;
}

/** A copy of `schema` whose discriminators name only their property: Ajv reads the branch from each one's constant, and refuses an OpenAPI `mapping`. */
function withoutMappings<T>(schema: T): T {
  return JSON.parse(JSON.stringify(schema), (key, value) => (key === 'discriminator' && value && typeof value === 'object' && 'propertyName' in value ? { propertyName: value.propertyName } : value));
}

export function installReplyCheck(app: FastifyInstance) {
  if (!replyCheckOn()) return;
  /** Replies held to their schema before the serializer wrote them. */
  const checked = new WeakSet<object>();
  const check = (request: FastifyRequest, status: number, payload: unknown) => {
    const response = request.is404 ? UNROUTED : (request.routeOptions.schema?.response as Record<string, unknown> | undefined);
    const schema = declaredFor(response, status);
    const where = `${request.method} ${request.routeOptions.url ?? request.url} -> ${status}`;
    if (schema === undefined) throw new ReplyViolation(where, 'no schema declared for this status');
    const validate = validatorOf(schema as object);
    const codes = declaredCodes(schema);
    const code = (payload as { code?: unknown } | null)?.code;
    const violation = !validate(payload) ? validate.errors : codes && !codes.includes(String(code)) ? `refusal code ${String(code)} is not among those declared for this status (${codes.join(', ')})` : null;
    if (violation !== null) throw new ReplyViolation(where, violation);
  };
  app.addHook('preSerialization', async (request: FastifyRequest, reply, payload: unknown) => {
    check(request, reply.statusCode, payload);
    checked.add(reply);
    return payload;
  });
  // Bytes a route sends as they are (an answer kept beside its actor or as a row, a page of kept items) never pass a
  // serializer: they are read back and held to the same schema as they leave.
  app.addHook('onSend', async (request, reply, payload: unknown) => {
    if (checked.has(reply) || reply.statusCode === 304 || !String(reply.getHeader('content-type') ?? '').startsWith('application/json')) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    check(request, reply.statusCode, JSON.parse(payload.toString()));
    return payload;
  });
}
