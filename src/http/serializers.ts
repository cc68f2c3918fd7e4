/**
 * The reply serializers: fast-json-stringify compiles each response schema
 * into a function that writes exactly the declared fields (faster than
 * JSON.stringify, and a field the schema does not declare never leaves).
 *
 * Compiling is the expensive part (milliseconds a schema, and the contract has
 * about 1,500 route × status schemas, most of them the same doors mounted under
 * several grain prefixes), so each distinct schema is compiled once per process
 * and shared by every route and every app that answers with it, and only when
 * it first writes a reply: compiled at boot, the distinct schemas alone took
 * half a second of the start-up (of a restart's first answer), most of them
 * for refusals and doors a process may never serve.
 *
 * A discriminated union (a `oneOf` with a `discriminator`: a journal or tail
 * entry, one branch per fact kind) is handed to the compiler as a dispatch on
 * the discriminator instead (`dispatchOnDiscriminator`): fast-json-stringify
 * writes a `oneOf` by validating the value against each branch in turn until
 * one holds, a whole validation of each fact of every journal it writes; the
 * dispatch tests only the discriminator, a handful of `enum` tests a value,
 * and each branch is then written by its own closed schema.
 */
import { createHash } from 'node:crypto';
import type { SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import fastJson, { type Schema } from 'fast-json-stringify';

type Serializer = ReturnType<ReturnType<SerializerFactory>>;
type Node = Record<string, any>;
const compiled = new Map<string, Serializer>();

/** Fastify's `schemaController.compilersFactory.buildSerializer`: the shared schemas it is given are the contract's components. */
export const buildSerializer: SerializerFactory = (externalSchemas, serializerOpts = {}) => {
  // Fastify hands its shared schemas (added with addSchema) keyed by $id.
  const external = (externalSchemas ?? {}) as Record<string, Schema>;
  // Two apps with the same components share serializers; a different set never does.
  const components = createHash('sha256').update(JSON.stringify(external)).digest('hex');
  let options: { schema: Record<string, Schema> } | undefined;
  return ({ schema }) => {
    const key = `${components}:${JSON.stringify(schema)}`;
    let serializer = compiled.get(key);
    if (!serializer) {
      let compiledSerializer: Serializer | undefined;
      // Fastify hands each route's response schema for one status: a JSON Schema object.
      serializer = (data) => (compiledSerializer ??= fastJson(schema as Schema, (options ??= { ...serializerOpts, schema: forSerializer(external) })))(data);
      compiled.set(key, serializer);
    }
    return serializer;
  };
};

/** The shared schemas as the serializer compiles them: each discriminated union a dispatch. */
export function forSerializer(external: Record<string, Schema>): Record<string, Schema> {
  return Object.fromEntries(Object.entries(external).map(([id, schema]) => [id, dispatchOnDiscriminator(schema as Node, external as Record<string, Node>) as Schema]));
}

/**
 * A discriminated union as a dispatch on its discriminator, for the
 * serializer; any other schema as it is.
 *
 * The union is an object schema with its own `properties` and a `oneOf` of
 * `$ref`s, each branch holding the discriminator as a `const` (`Fact.<kind>`):
 * each branch becomes one closed object (the union's fields and the branch's),
 * and the dispatch an `if`/`then`/`else` tree halving the set of values at
 * each level (`if: {kind in [first half]}`), so a value costs about log2(n)
 * `enum` tests. A value no branch names is written with the union's own
 * fields and its other fields left out (so nothing undeclared leaves; the
 * reply check refuses it in tests).
 */
export function dispatchOnDiscriminator(schema: Node, external: Record<string, Node>): Node {
  const propertyName = schema.discriminator?.propertyName;
  if (typeof propertyName !== 'string' || !Array.isArray(schema.oneOf)) return schema;
  const { oneOf, discriminator: _discriminator, examples: _examples, description: _description, $id, ...own } = schema;
  const branches = (oneOf as Node[]).map((option) => {
    const target = external[String(option.$ref).replace(/#$/, '')];
    const named = target?.properties?.[propertyName];
    const value = named?.const ?? (named?.enum?.length === 1 ? named.enum[0] : undefined);
    if (typeof value !== 'string') throw new Error(`${$id}: the branch ${option.$ref} names no ${propertyName} (a const)`);
    return { value, schema: closedObject(own, target) };
  });
  // The union's own fields, closed: what a value of a kind no branch names is written with. A field the branches
  // type (a fact's `data`) is written as an empty object where they make it one, and left out otherwise.
  const typed = new Map<string, boolean>();
  for (const option of oneOf as Node[]) for (const [name, member] of Object.entries<Node>(external[String(option.$ref).replace(/#$/, '')]?.properties ?? {})) if (name !== propertyName) typed.set(name, (typed.get(name) ?? true) && member.type === 'object');
  const unknownProperties = Object.fromEntries(Object.entries<Node>(own.properties ?? {}).flatMap(([name, member]): Array<[string, Node]> => (!typed.has(name) ? [[name, member]] : typed.get(name) ? [[name, { type: 'object', additionalProperties: false }]] : [])));
  const unknown = closedObject({ properties: unknownProperties, required: (own.required ?? []).filter((name: string) => name in unknownProperties) }, { properties: {}, required: [] });
  const test = (values: string[]) => ({ type: 'object', required: [propertyName], properties: { [propertyName]: { enum: values } } });
  const tree = (part: typeof branches, last: boolean): Node => {
    if (part.length === 1) return last ? { if: test([part[0].value]), then: part[0].schema, else: unknown } : part[0].schema;
    const half = Math.ceil(part.length / 2);
    return { if: test(part.slice(0, half).map((b) => b.value)), then: tree(part.slice(0, half), false), else: tree(part.slice(half), last) };
  };
  // The tree sits under $defs: the schema keeps its $id, and the branches merge with no sibling keyword.
  return { $id, $ref: '#/$defs/dispatch', $defs: { dispatch: tree(branches, true) } };
}

/** An object of the union's fields and a branch's (the branch's win: its discriminator is its const), closed. */
function closedObject(own: Node, branch: Node): Node {
  return {
    type: 'object',
    additionalProperties: false,
    properties: { ...own.properties, ...branch.properties },
    required: [...new Set([...(own.required ?? []), ...(branch.required ?? [])])],
  };
}
