/** Schema pieces shared by every route. One source: they validate and they document. */
import { Type, type ObjectOptions, type Static, type StringOptions, type TSchema } from '@sinclair/typebox';
import { SHA256_HEX_PATTERN } from '../domain/hash.ts';

/** Shorthands every schema module writes with. */
export const Opt = Type.Optional;
export const Arr = Type.Array;
export const Str = Type.String();
export const Int = Type.Integer();
export const Num = Type.Number();
export const Bool = Type.Boolean();
export const Any = Type.Unknown();

/**
 * A page cursor sent by a client (a seq or a position): a whole number a
 * JSON number holds exactly. Without the maximum, `after=1e400` validated as
 * an integer (Infinity) and broke the reply that echoes it.
 */
export const Cursor = (description: string, minimum = 0) => Type.Integer({ minimum, maximum: Number.MAX_SAFE_INTEGER, description, examples: [minimum] });
export const Text = (max = 200) => Type.String({ minLength: 1, maxLength: max });
export const Money = Type.Number({ minimum: 0, maximum: 1_000_000_000 });
/** The sha256 of "foo": what an example hash looks like. */
export const EXAMPLE_SHA256 = '2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae';
export const Sha256Hex = Type.String({ pattern: SHA256_HEX_PATTERN, description: '64 lowercase hex characters', examples: [EXAMPLE_SHA256] });
/**
 * The values the answers' examples share, so the document tells one story:
 * the ids are the path parameters' examples (`PATH_EXAMPLES` in contract-examples.ts),
 * each in the service's id shape (`src/domain/ids.ts`: a kind prefix and 25
 * base-36 characters), and one instant for every timestamp.
 */
export const EXAMPLE = {
  matter: 'mt_0k4n8b2v6c1x9z3l7j5h2g8f4',
  asset: 'as_2m6n0b4v8c3x7z1l5k9j3h7g1',
  workspace: 'ws_3x7k2p9q1m8v4c6n0b5z2r7t1',
  tenant: 'tn_1q9w3e7r5t2y8u4i6o0p3a5s7',
  firm: 'fm_5d8f2g6h1j9k3l7z4x0c2v6b8',
  webhook: 'wh_7v1c5x9z3l8k2j6h0g4f8d2s6',
  delivery: 'dl_9f86d081884c7d659a2feaa0c55ad015',
  event: 'evt_2d711642b726b04401627ca9fbac32f5',
  client: 'cl_ce3u2jdmioe8dcy1qwrsqbeyh',
  document: 'doc_m7iylc02bksq2mxdy2j12qn81',
  keyId: 'key_jvel6nl50apuxkdaowvxb4w53',
  enrollment: 'en_3i6am948tr60gdu5b9u6pk9mw',
  member: 'mb_fixture_eligible',
  signer: 'sg_fixture_eligible',
  at: '2026-11-26T09:00:00.000Z',
} as const;
/** A string of a reply with its example: an answer's example is composed from its fields' (composeExample in contract-examples.ts). */
export const StrEx = (example: string, options: StringOptions = {}) => Type.String({ ...options, examples: [example] });
/** A timestamp of a reply (ISO 8601, UTC), with the shared example instant. */
export const At = (description?: string) => StrEx(EXAMPLE.at, description ? { description } : {});

export const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$' });
/** A page size: at most `maximum`, `fallback` when left out. */
export const PageSize = (maximum: number, fallback: number, description = `page size, at most ${maximum}`) => Type.Integer({ minimum: 1, maximum, default: fallback, description, examples: [fallback] });
/** A closed object: a request body refuses a field it does not name, a reply never carries one. */
export const Strict = <T extends Record<string, TSchema>>(properties: T, options?: string | ObjectOptions) =>
  Type.Object(properties, { additionalProperties: false, ...(typeof options === 'string' ? { description: options } : options) });
/**
 * A value or null. A schema with one `type` becomes the same schema with a
 * type array (`type: ["object", "null"]`), which the compiled serializer
 * writes after a typeof test; only a `$ref` or a union needs an `anyOf`,
 * which it resolves by validating the whole value, on every reply (keep those
 * off hot paths).
 */
export const Nullable = <T extends TSchema>(t: T) =>
  typeof t.type === 'string' ? Type.Unsafe<Static<T> | null>({ ...t, type: [t.type, 'null'] }) : Type.Union([t, Type.Null()]);

/** A string enum typed as its values' union (a plain `enum`, not TypeBox's `anyOf` of literals). */
export const Enum = <T extends readonly string[]>(values: T, description?: string) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

// Path parameters are not strict: a grain prefix (`/workspaces/:workspaceId`) adds its own.
export const MatterParams = Type.Object({ id: Id });
export const WorkspaceParams = Type.Object({ workspaceId: Id });

/**
 * A write may be conditional: `If-Match: "<version>"` (the ETag of the record
 * as read: a Matter, a Deadline Ladder, an Enrollment), or `*` for any. A
 * read that tags its bytes as well answers `"<version>.<digest>"` (`etag.ts`):
 * taken too, by its version.
 */
export const IfMatchHeaders = Type.Object({
  'if-match': Opt(Type.String({ pattern: '^("[0-9]{1,15}(\\.[A-Za-z0-9_-]{1,64})?"|\\*)$', description: 'the version of the record (a Matter, a Deadline Ladder, an Enrollment) the write was decided against, as its ETag gives it ("12", or "12.<digest>" from a read that tags its bytes too: only the version is compared); a record that has moved on answers 412 VERSION_MISMATCH with `currentVersion`, and nothing is written', examples: ['"3"'] })),
});
