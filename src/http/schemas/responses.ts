/**
 * Response schemas. They document; they never filter: the app serializes with
 * plain JSON.stringify, so a field missing from a schema is still sent, and
 * the contract test holds every real response to these schemas with Ajv.
 * Objects stay open (extra fields allowed) so the documents describe what a
 * client may rely on without forbidding additions.
 */
import { Type, type TSchema } from '@sinclair/typebox';

const Opt = Type.Optional;
const Str = Type.String();
const Int = Type.Integer();
const Num = Type.Number();
const Bool = Type.Boolean();
const Any = Type.Unknown();
const AnyObject = Type.Object({});

export const OutcomeType = Type.Union([Type.Literal('OK'), Type.Literal('EMPTY'), Type.Literal('BLOCKED')], { description: 'the typed outcome' });

/** Every refusal: a worded `error`, a machine `code`, a `type` where the outcome is typed. */
export const ErrorBody = Type.Object(
  {
    type: Opt(Type.Union([Type.Literal('BLOCKED'), Type.Literal('EMPTY')])),
    error: Str,
    code: Str,
    rule: Opt(Str),
    fix: Opt(Str),
  },
  { description: 'a refusal: nothing was written' },
);

/** A typed OK body with the given fields. */
export const Ok = <T extends Record<string, TSchema>>(properties: T, description?: string) =>
  Type.Object({ type: Type.Literal('OK'), ...properties }, description ? { description } : {});

/** A typed EMPTY body: a truthful empty set with a message saying why. */
export const Empty = Type.Object({ type: Type.Literal('EMPTY'), results: Type.Array(Any, { maxItems: 0 }), message: Str }, { description: 'a truthful empty set' });

/** A list answer: OK with its results, or a typed EMPTY. */
export const Listed = (item: TSchema, extra: Record<string, TSchema> = {}, description?: string) =>
  Type.Union([Type.Object({ type: Type.Literal('OK'), results: Type.Array(item, { minItems: 1 }), ...extra }), Type.Object({ type: Type.Literal('EMPTY'), results: Type.Array(Any, { maxItems: 0 }), message: Str, ...extra })], description ? { description } : {});

/** A body that is not JSON (HTML, plain text), documented by media type. */
export const Media = (mediaType: string, description: string) => ({ description, content: { [mediaType]: { schema: Type.String() } } });

export const KeyIssued = Ok(
  {
    key: Type.String({ pattern: '^lwk_[A-Za-z0-9_-]{43}$', description: 'the key, shown once' }),
    shownOnce: Type.Literal(true),
    keyId: Str,
    tier: Type.Literal('identified'),
    email: Str,
    building: Opt(Str),
    spendCeilingUsd: Type.Union([Num, Type.Null()]),
    issuedAt: Str,
    use: Type.Object({ header: Str, scheme: Str, example: Str }),
  },
  'the key, shown once; it is stored hashed',
);

export { Any, AnyObject, Bool, Int, Num, Str };
