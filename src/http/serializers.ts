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
 * Unions are never written by trying their branches. fast-json-stringify
 * writes an `anyOf`/`oneOf` by validating the value against each branch in
 * turn until one holds (every Matter of a page validated before the page is
 * written), and compiles each branch with a validator beside it. So:
 *
 * - a discriminated union (`discriminator` beside a `oneOf` of components,
 *   each holding the discriminator as a constant: a journal or tail entry,
 *   one branch per fact kind) is compiled as the union's own closed fields
 *   alone, and each value's other fields (a fact's `data`) are projected,
 *   before the serializer writes them, onto what its branch declares: a
 *   projector per kind, compiled from the kind's schema the first time a
 *   fact of that kind is written (`prepareFor`, `projectorOf`). A field its
 *   kind does not declare is dropped, so it never leaves; a kind no branch
 *   names is written with an empty `data`;
 * - a union of objects one field tells apart by its constant (an OK page or a
 *   typed EMPTY, by `type`), or by its presence (a list's record, closed, or
 *   the `UnreadableItem` in its place, which alone holds `unreadable`), is
 *   written by testing that field (`dispatchOnConstant`), and the branch it
 *   names by its own schema.
 *
 * A journal entry's union compiled as fast-json-stringify's own dispatch
 * (an `if`/`then`/`else` tree on `kind`, every kind's branch written out)
 * made the serializer of GET of a Matter take half a second to compile: a
 * restart's first answer, fifteen times the 35 ms it takes now.
 */
import { createHash } from 'node:crypto';
import type { SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import fastJson, { type Schema } from 'fast-json-stringify';

type Serializer = ReturnType<ReturnType<SerializerFactory>>;
type Node = Record<string, any>;
type Transform = (value: any) => any;
const compiled = new Map<string, Serializer>();

/** Fastify's `schemaController.compilersFactory.buildSerializer`: the shared schemas it is given are the contract's components. */
export const buildSerializer: SerializerFactory = (externalSchemas, serializerOpts = {}) => {
  // Fastify hands its shared schemas (added with addSchema) keyed by $id.
  const external = (externalSchemas ?? {}) as Record<string, Node>;
  // Two apps with the same components share serializers; a different set never does.
  const components = componentsDigest(external);
  let options: { schema: Record<string, Schema> } | undefined;
  return ({ schema }) => {
    const key = `${components}:${JSON.stringify(schema)}`;
    let serializer = compiled.get(key);
    if (!serializer) {
      let write: ((data: unknown) => string) | undefined;
      // Fastify hands each route's response schema for one status: a JSON Schema object.
      const compile = () => {
        const writer = fastJson(dispatchUnions(schema as Node, external) as Schema, (options ??= { ...serializerOpts, schema: forSerializer(external) }));
        const prepare = prepareFor(schema as Node, external);
        return prepare ? (data: unknown) => writer(prepare(data)) : writer;
      };
      serializer = (data) => (write ??= compile())(data);
      compiled.set(key, serializer);
    }
    return serializer;
  };
};

/** Each shared schema's digest, by the object Fastify holds it as: the same for every plugin context of an app. */
const schemaDigests = new WeakMap<Node, string>();

/**
 * What the shared schemas are, as one digest. Fastify asks for a serializer
 * factory in each plugin context (some forty an app), handing the same schema
 * objects each time in a fresh record: each is written out and hashed once,
 * not once a context (that was a fifth of an app's start).
 */
function componentsDigest(external: Record<string, Node>): string {
  const hash = createHash('sha256');
  for (const [id, schema] of Object.entries(external)) {
    let digest = schemaDigests.get(schema);
    if (digest === undefined) schemaDigests.set(schema, (digest = createHash('sha256').update(JSON.stringify(schema)).digest('hex')));
    hash.update(`${id}\0${digest}\n`);
  }
  return hash.digest('hex');
}

/**
 * The shared schemas as the serializer compiles them: each discriminated
 * union its own fields, every other union a dispatch; and without the
 * discriminated unions' branches (the `Fact.<kind>` components), which only
 * their unions name and the projection reads: fast-json-stringify registers
 * every shared schema it is given at every compile.
 */
export function forSerializer(external: Record<string, Node>): Record<string, Schema> {
  const branches = new Set(Object.values(external).filter(isDiscriminated).flatMap((union) => (union.oneOf as Node[]).map((option) => String(option.$ref).replace(/#$/, ''))));
  return Object.fromEntries(Object.entries(external).filter(([id]) => !branches.has(id)).map(([id, schema]) => [id, dispatchUnions(ownFields(schema) ?? schema, external) as Schema]));
}

/**
 * A discriminated union as the serializer writes it: its own fields, closed
 * (the discriminator a plain string, and a field its branches type, such as a
 * fact's `data`, any value: `prepareFor` has projected it by then); null for
 * any other schema.
 */
function ownFields(schema: Node): Node | null {
  if (!isDiscriminated(schema)) return null;
  const { oneOf: _oneOf, discriminator, examples: _examples, ...own } = schema;
  return { ...own, type: 'object', additionalProperties: false, properties: { ...own.properties, [discriminator.propertyName]: { type: 'string' } } };
}

const isDiscriminated = (schema: Node | undefined): boolean => typeof schema?.discriminator?.propertyName === 'string' && Array.isArray(schema.oneOf);

/** A component a whole-component `$ref` (`Name#`) names; undefined for any other reference. */
const componentOf = (ref: unknown, external: Record<string, Node>): Node | undefined => (typeof ref === 'string' && /^[^#]+#$/.test(ref) ? external[ref.slice(0, -1)] : undefined);

/** The keywords under which a schema holds other schemas. */
const BY_NAME = ['properties', 'patternProperties', '$defs', 'definitions'] as const;
const LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const SINGLE = ['items', 'additionalProperties', 'not', 'contains', 'if', 'then', 'else'] as const;

/**
 * `schema` with each union of objects told apart by a constant written as a
 * dispatch on it (`dispatchOnConstant`), at any depth; a new object wherever
 * something changed, the schema itself where nothing did (the route's and the
 * components' own schemas are never touched).
 */
export function dispatchUnions(schema: Node, external: Record<string, Node>): Node {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  let out = schema;
  const set = (key: string, value: unknown) => {
    if (out === schema) out = { ...schema };
    out[key] = value;
  };
  for (const key of SINGLE) {
    const inner = schema[key];
    if (inner && typeof inner === 'object') {
      const next = dispatchUnions(inner, external);
      if (next !== inner) set(key, next);
    }
  }
  for (const key of LISTS) {
    const list = schema[key];
    if (!Array.isArray(list)) continue;
    let next: Node[] | undefined;
    for (let i = 0; i < list.length; i++) {
      const inner = dispatchUnions(list[i], external);
      if (inner !== list[i]) (next ??= [...list])[i] = inner;
    }
    if (next) set(key, next);
  }
  for (const key of BY_NAME) {
    const map = schema[key];
    if (!map || typeof map !== 'object') continue;
    let next: Record<string, Node> | undefined;
    for (const name in map) {
      const inner = dispatchUnions(map[name], external);
      if (inner !== map[name]) (next ??= { ...map })[name] = inner;
    }
    if (next) set(key, next);
  }
  return dispatchOnConstant(out, external) ?? out;
}

/** The constant a branch holds in `name` (a `const`, or an `enum` of one), if any. */
function constantOf(branch: Node | undefined, name: string): unknown {
  const member = branch?.properties?.[name];
  return member?.const ?? (Array.isArray(member?.enum) && member.enum.length === 1 ? member.enum[0] : undefined);
}

/** What a value no branch of a union names meets: a refusal to write it (the serializer throws, naming it), as the union's own refusal was. */
const NONE_OF = { type: 'object', required: ['(a value of one of the union\'s branches)'], properties: {} };

/**
 * An `anyOf`/`oneOf` of objects that one required field tells apart, each
 * branch holding a different constant there (an OK page or a typed EMPTY,
 * by `type`) or one closed branch not declaring it (`absentFrom`), as an
 * `if`/`then`/`else` on that field; null for any other
 * schema. Each branch is written by its own schema, unchanged, and never
 * validated whole first (an OK page was, every item of it); a value whose
 * field names no branch is refused, as the union refused it.
 */
export function dispatchOnConstant(schema: Node, external: Record<string, Node>): Node | null {
  const key = Array.isArray(schema.anyOf) ? 'anyOf' : Array.isArray(schema.oneOf) ? 'oneOf' : null;
  if (!key || schema.discriminator || schema[key].length < 2) return null;
  const options = schema[key] as Node[];
  const targets = options.map((option) => (option.$ref ? componentOf(option.$ref, external) : option));
  if (targets.some((t) => t?.type !== 'object' || !t.properties)) return null;
  const candidates = Object.keys(targets[0]!.properties).filter((name) => targets.every((t) => (t!.required ?? []).includes(name) && constantOf(t, name) !== undefined));
  const name = candidates.find((n) => new Set(targets.map((t) => JSON.stringify(constantOf(t, n)))).size === targets.length);
  const { [key]: _union, ...siblings } = schema;
  // The branches that hold the field's constants, tried in turn, then `last`.
  const chain = (field: string, held: number[], last: Node): Node =>
    held.reduceRight<Node>((otherwise, i) => ({ if: { type: 'object', required: [field], properties: { [field]: { enum: [constantOf(targets[i], field)] } } }, then: options[i], else: otherwise }), last);
  if (name) return { ...siblings, ...chain(name, options.map((_, i) => i), NONE_OF) };
  // A record or the item in its place (a list's `UnreadableItem`): the item alone holds the field, and the record, closed, cannot.
  const absent = absentFrom(targets as Node[]);
  if (!absent) return null;
  const { field, without } = absent;
  const held = options.map((_, i) => i).filter((i) => i !== without);
  return { ...siblings, ...chain(field, held, { if: { type: 'object', not: { required: [field] } }, then: options[without], else: NONE_OF }) };
}

/**
 * A field that tells a union's branches apart by its presence: every branch
 * but one requires it as a distinct constant, and that one is closed and
 * does not declare it. Null when no field does.
 */
function absentFrom(targets: Node[]): { field: string; without: number } | null {
  const closedWithout = (t: Node, field: string) => t.additionalProperties === false && !(field in t.properties);
  for (const field of new Set(targets.flatMap((t) => Object.keys(t.properties)))) {
    const without = targets.findIndex((t) => closedWithout(t, field));
    if (without < 0 || targets.filter((t) => closedWithout(t, field)).length !== 1) continue;
    const holders = targets.filter((_, i) => i !== without);
    const constants = holders.map((t) => ((t.required ?? []).includes(field) ? constantOf(t, field) : undefined));
    if (constants.every((c) => c !== undefined) && new Set(constants.map((c) => JSON.stringify(c))).size === holders.length) return { field, without };
  }
  return null;
}

/**
 * What a reply needs before the serializer writes it: each value of a
 * discriminated union in it (each fact of a journal or a tail page) with its
 * branch's fields projected onto what its branch declares; null when the
 * schema holds no such union (the reply is written as it is).
 */
export function prepareFor(schema: Node, external: Record<string, Node>): Transform | null {
  return planOf(schema, external, new Set());
}

/**
 * A union of a discriminated union and items that never hold its
 * discriminator (a tail's entry, or the `UnreadableEntry` in its place): a
 * value holding the discriminator is projected as the union's entry, any
 * other written as it is. Null for any other schema; a union mixing them
 * otherwise is refused at compile time.
 */
function entryBesideItems(schema: Node, external: Record<string, Node>): Transform | null {
  const union = schema.oneOf ?? schema.anyOf;
  if (!Array.isArray(union)) return null;
  const targets = (union as Node[]).map((part) => (part.$ref ? componentOf(part.$ref, external) : part));
  const at = targets.findIndex(isDiscriminated);
  if (at < 0) return null;
  const field: string = targets[at]!.discriminator.propertyName;
  const others = targets.filter((_, i) => i !== at);
  if (others.some((t) => !t || isDiscriminated(t) || t.properties?.[field] !== undefined || planOf(t, external, new Set()) !== null)) {
    throw new Error(`the serializer projects a discriminated union beside other branches only when none of them holds "${field}" or needs projecting`);
  }
  const project = entryProjector(targets[at]!, external);
  return (value) => (value && typeof value === 'object' && field in value ? project(value) : value);
}

/** The transform of a value of `schema` (a copy wherever something under it is projected), or null when nothing under it is. */
function planOf(schema: Node | undefined, external: Record<string, Node>, seen: Set<Node>): Transform | null {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return null;
  if (schema.$ref) return planOf(componentOf(schema.$ref, external), external, seen);
  if (isDiscriminated(schema)) return entryProjector(schema, external);
  const beside = entryBesideItems(schema, external);
  if (beside) return beside;
  seen.add(schema);
  try {
    // The members each branch of a union (and each part of an allOf) declares, by name: a value takes the plans of the names it has.
    const members = new Map<string, Transform>();
    let items: Transform | null = null;
    for (const part of [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) {
      const target = part.$ref ? componentOf(part.$ref, external) : part;
      if (!target) continue;
      // Not met in the contract; were it, its values would be written unprojected: refuse to compile instead.
      if (target !== schema && isDiscriminated(target)) throw new Error(`the serializer projects a discriminated union (${String(part.$ref)}) only where it stands alone, not as a branch or part of another schema`);
      for (const [name, member] of Object.entries<Node>(target.properties ?? {})) {
        const plan = planOf(member, external, seen);
        if (plan && !members.has(name)) members.set(name, plan);
      }
      items ??= planOf(target.items, external, seen);
    }
    if (!members.size && !items) return null;
    const names = [...members];
    return (value) => {
      if (Array.isArray(value)) return items ? value.map(items) : value;
      if (!value || typeof value !== 'object' || !members.size) return value;
      let out = value;
      for (const [name, plan] of names) {
        if (value[name] === undefined) continue;
        if (out === value) out = { ...value };
        out[name] = plan(value[name]);
      }
      return out;
    };
  } finally {
    seen.delete(schema);
  }
}

/**
 * The projector of a discriminated union's values: each value's branch fields
 * (a fact's `data`) projected by its branch's schema, chosen by its
 * discriminator, each branch's projector compiled the first time a value of
 * it is written. A value no branch names keeps its own fields, and a field
 * the branches type becomes an empty object where they all make it one
 * (a fact's `data`: `{}`) and is dropped otherwise.
 */
function entryProjector(union: Node, external: Record<string, Node>): Transform {
  const name: string = union.discriminator.propertyName;
  const branches = new Map<unknown, Node>();
  for (const option of union.oneOf as Node[]) {
    const target = componentOf(option.$ref, external) ?? option;
    branches.set(constantOf(target, name), target);
  }
  // The fields the branches declare (beside the discriminator), and whether every branch makes each an object.
  const typed = new Map<string, boolean>();
  for (const branch of branches.values()) for (const [field, member] of Object.entries<Node>(branch.properties ?? {})) if (field !== name) typed.set(field, (typed.get(field) ?? true) && member.type === 'object');
  const unknown: Transform = (value) => {
    const out = { ...value };
    for (const [field, object] of typed) if (field in out) object ? (out[field] = {}) : delete out[field];
    return out;
  };
  const projectors = new Map<unknown, Transform>();
  const projectorFor = (kind: unknown): Transform => {
    let project = projectors.get(kind);
    if (!project) {
      const branch = branches.get(kind);
      if (!branch) return unknown;
      const fields = [...typed.keys()].map((field) => [field, branch.properties?.[field] ? projectorOf(branch.properties[field], external) : undefined] as const);
      project = (value) => {
        const out = { ...value };
        for (const [field, projectField] of fields) {
          if (!(field in out)) continue;
          const projected = projectField ? projectField(out[field]) : undefined;
          if (projected === undefined) delete out[field];
          else out[field] = projected;
        }
        return out;
      };
      projectors.set(kind, project);
    }
    return project;
  };
  return (value) => (value && typeof value === 'object' ? projectorFor(value[name])(value) : value);
}

/**
 * A value as a closed schema declares it: an object keeps the members its
 * schema names (each projected in turn) and loses the others, unless the
 * schema leaves it open (a map the caller words, kept whole); an array, its
 * items projected; a scalar, itself when its type is one the schema takes,
 * and nothing (undefined: the member is dropped) when it is not.
 *
 * An object's projector is generated code (a member a line, a scalar's type
 * test inline): a fact's data is projected on every journal and tail page.
 */
export function projectorOf(schema: Node, external: Record<string, Node>): Transform {
  const shape = shapeOf(schema, external);
  if (shape.kind === 'union') {
    const branches = shape.branches.map((branch) => ({ accepts: typesOf(branch), project: projectorOf(branch, external) }));
    return (value) => branches.find((b) => b.accepts.has(typeOfValue(value)))?.project(value);
  }
  if (shape.kind === 'object') {
    const helpers: Transform[] = [];
    const lines = Object.entries<Node>(shape.properties).map(([name, member]) => {
      const key = JSON.stringify(name);
      const test = scalarTest(shapeOf(member, external), 'x');
      if (test !== null) return `x = v[${key}]; if (x !== undefined && ${test}) o[${key}] = x;`;
      helpers.push(projectorOf(member, external));
      return `x = v[${key}]; if (x !== undefined) { y = h[${helpers.length - 1}](x); if (y !== undefined) o[${key}] = y; }`;
    });
    const body = [
      `if (v === null) return ${shape.nullable ? 'null' : 'undefined'};`,
      "if (typeof v !== 'object' || Array.isArray(v)) return undefined;",
      'const o = {}; let x, y;',
      ...lines,
      'return o;',
    ].join('\n');
    return new Function('h', `return function project(v) {\n${body}\n}`)(helpers) as Transform;
  }
  if (shape.kind === 'array') {
    const item = projectorOf(shape.items, external);
    const nullable = shape.nullable;
    return (value) => (value === null && nullable ? null : Array.isArray(value) ? value.map(item) : undefined);
  }
  const test = scalarTest(shape, 'x');
  return test === null ? (value) => value : (new Function(`return function project(x) { return ${test} ? x : undefined; }`)() as Transform);
}

type Shape =
  | { kind: 'union'; branches: Node[] }
  | { kind: 'object'; properties: Record<string, Node>; nullable: boolean }
  | { kind: 'array'; items: Node; nullable: boolean }
  | { kind: 'scalar'; accepts: Set<string> };

/** How a schema projects: a union of branches, a closed object of members, an array of items, or a value kept when its type is one the schema takes (any type: an open map, any value). */
function shapeOf(schema: Node, external: Record<string, Node>): Shape {
  if (schema.$ref) {
    const target = componentOf(schema.$ref, external);
    if (!target) throw new Error(`the serializer cannot project through ${schema.$ref}`);
    const { $ref: _ref, ...siblings } = schema;
    return shapeOf(Object.keys(siblings).some((k) => k !== 'description') ? { ...siblings, allOf: [target] } : target, external);
  }
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return { kind: 'union', branches: union.map((branch: Node) => (branch.$ref ? componentOf(branch.$ref, external)! : branch)) };
  if (Array.isArray(schema.allOf)) {
    // The parts' members together (a rung's fields shared with its webhook), closed as the schema around them says.
    const parts = schema.allOf.map((part: Node) => (part.$ref ? componentOf(part.$ref, external)! : part));
    return { kind: 'object', properties: Object.assign({}, ...parts.map((p: Node) => p.properties ?? {}), schema.properties ?? {}), nullable: false };
  }
  const accepts = typesOf(schema);
  const closed = schema.additionalProperties === false || schema.unevaluatedProperties === false || schema.additionalProperties === undefined;
  if (accepts.has('object') && schema.properties && closed) return { kind: 'object', properties: schema.properties, nullable: accepts.has('null') };
  if (accepts.has('array') && schema.items) return { kind: 'array', items: schema.items, nullable: accepts.has('null') };
  return { kind: 'scalar', accepts };
}

/** The inline test that a scalar `x` is of a type the shape takes; null when it is not a scalar's (any type, an object, an array, a union). */
function scalarTest(shape: Shape, x: string): string | null {
  if (shape.kind !== 'scalar' || !shape.accepts.size || shape.accepts.has('object') || shape.accepts.has('array')) return null;
  return `(${[...shape.accepts].map((t) => (t === 'null' ? `${x} === null` : `typeof ${x} === '${t}'`)).join(' || ')})`;
}

/** The JSON types a schema takes (`integer` counted as a number; an enum's or a const's own types); empty when it says none (any value). */
function typesOf(schema: Node): Set<string> {
  const declared = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const fromValues = [...(Array.isArray(schema.enum) ? schema.enum : []), ...('const' in schema ? [schema.const] : [])].map(typeOfValue);
  return new Set([...declared.map((t: string) => (t === 'integer' ? 'number' : t)), ...fromValues]);
}

/** A value's JSON type. */
function typeOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** The OK branch of a page's answer (a union of an OK page and a typed EMPTY, told apart by `type`): where its items' schema is. */
export function okBranchOf(schema: unknown): { properties?: { results?: { items?: unknown } } } | undefined {
  if (!schema) return undefined;
  const branches = ((schema as { anyOf?: unknown[]; oneOf?: unknown[] }).anyOf ?? (schema as { oneOf?: unknown[] }).oneOf ?? []) as Array<{ properties?: { type?: { const?: unknown }; results?: { items?: unknown } } }>;
  return branches.find((b) => b.properties?.type?.const === 'OK');
}
