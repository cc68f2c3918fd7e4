/** Schema pieces shared by every route. One source: they validate and they document. */
import { Type, type ObjectOptions, type Static, type TSchema } from '@sinclair/typebox';
import { SHA256_HEX_PATTERN } from '../../domain/hash.ts';

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
