/**
 * The compact form of the contract (`/openapi.json?form=compact`, issue 19):
 * the full document's doors each listed once, its answers, parameters and
 * repeated schemas each written once and referenced.
 */
import { isDeepStrictEqual } from 'node:util';
import type { OpenAPIV3_1 } from 'openapi-types';
import { composeExample, PATH_EXAMPLES, type SchemaNode } from './contract-examples.ts';
import { LIMITED_HEADERS, REFUSAL_CODES } from './contract-vocabulary.ts';

/** The grain prefixes every resource door is mounted under beside the top level. */
const GRAIN_PREFIXES = [
  { prefix: '/workspaces/{workspaceId}', name: 'workspaceId', id: PATH_EXAMPLES['workspaces/workspaceId'] },
  { prefix: '/tenants/{tenantId}', name: 'tenantId', id: PATH_EXAMPLES['tenants/tenantId'] },
  { prefix: '/firms/{firmId}', name: 'firmId', id: PATH_EXAMPLES['firms/firmId'] },
] as const;

const COMPACT_NOTE = 'This is the compact form of the contract (`/openapi.json?form=compact`): each door is listed once. A door also mounted under sandbox grain prefixes lists them as its path-level `servers` (`/workspaces/{workspaceId}`, `/tenants/{tenantId}`, `/firms/{firmId}`): send the same request under the prefix. Under a grain prefix every door is keyless (no bearer key), and an unknown or expired grain answers 404 WORKSPACE_NOT_FOUND, TENANT_NOT_FOUND or FIRM_NOT_FOUND. Every answer of a POST or PUT may carry `Idempotent-Replayed` (components.headers.IdempotentReplayed), and every 429 `Retry-After`, `RateLimit` and `RateLimit-Policy`. Each answer and each parameter is written once in `components.responses` and `components.parameters` and referenced; a body\'s or answer\'s example made of its fields\' own examples is left to them (compose it from the fields; the full form writes it out); the refusal codes a status can carry are the `x-refusal-codes` of the shared answer. The full form, every door under every prefix, is `/openapi.json`.';

/**
 * The compact contract for agents (issue 19): the full document's doors listed
 * once each. A door the grain prefixes repeat keeps its top-level path and
 * names the prefixes as path-level `servers` (OpenAPI 3.1's own way to say a
 * path is served under another base); a door only a grain serves keeps its
 * prefixed path. Every response object, repeated verbatim across operations
 * (the refusals above all), is written once in `components.responses` and
 * referenced. Nothing else changes: schemas, parameters, examples and the
 * refusal codes are the full document's.
 */
export function compactContract(full: OpenAPIV3_1.Document): OpenAPIV3_1.Document {
  const doc = structuredClone(full);
  dropComposedExamples(doc);
  const paths: Record<string, any> = {};
  const mounts = new Map<string, Set<string>>();
  for (const path of Object.keys(doc.paths ?? {})) {
    const grain = GRAIN_PREFIXES.find((g) => path.startsWith(`${g.prefix}/`));
    const rest = grain ? path.slice(grain.prefix.length) : undefined;
    if (grain && rest && doc.paths?.[rest]) mounts.set(rest, (mounts.get(rest) ?? new Set()).add(grain.prefix));
  }
  const responses: Record<string, unknown> = {};
  const responseName = nameOnce(responses);
  const share = (status: string, answer: unknown) => ({ $ref: `#/components/responses/${responseName(answer, (n) => `r${status}_${n}`)}` });
  const parameters: Record<string, unknown> = {};
  const parameterName = nameOnce(parameters);
  const parameter = (p: { name: string }) => ({ $ref: `#/components/parameters/${parameterName(p, (n) => `${p.name.replace(/[^A-Za-z0-9_.-]/g, '_')}_${n}`)}` });
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    const grain = GRAIN_PREFIXES.find((g) => path.startsWith(`${g.prefix}/`));
    if (grain && doc.paths?.[path.slice(grain.prefix.length)]) continue;
    for (const operation of Object.values<any>(item)) {
      if (!operation?.responses) continue;
      // The refusal codes of a status travel with its shared answer: the same map, read one level down.
      const codes: Record<string, string[]> = operation[REFUSAL_CODES] ?? {};
      delete operation[REFUSAL_CODES];
      for (const [status, answer] of Object.entries<any>(operation.responses)) {
        // The headers every write's answers and every 429 carry are said once, in the note, not on each answer.
        const headers = Object.fromEntries(Object.entries<unknown>(answer.headers ?? {}).filter(([name]) => name !== 'Idempotent-Replayed' && !(name in LIMITED_HEADERS)));
        const { headers: _all, ...rest } = answer;
        const trimmed = Object.keys(headers).length ? { ...rest, headers } : rest;
        operation.responses[status] = share(status, codes[status] ? { ...trimmed, [REFUSAL_CODES]: codes[status] } : trimmed);
      }
      if (operation.parameters) operation.parameters = operation.parameters.map(parameter);
    }
    const prefixes = mounts.get(path);
    if (prefixes) {
      // What a grain id is and where it comes from is said once, in the note.
      item.servers = [{ url: '/' }, ...GRAIN_PREFIXES.filter((g) => prefixes.has(g.prefix)).map((g) => ({ url: g.prefix, variables: { [g.name]: { default: g.id.example } } }))];
    }
    paths[path] = item;
  }
  doc.paths = paths;
  doc.components = { ...doc.components, parameters: parameters as OpenAPIV3_1.ComponentsObject['parameters'], responses: responses as OpenAPIV3_1.ComponentsObject['responses'] };
  hoistRepeatedSchemas(doc);
  shareDiscriminatedUnions(doc);
  const common = shareCommonAnswers(doc);
  const grains = GRAIN_PREFIXES.map((g) => `\`${g.prefix}\`: ${g.id.description}`).join('; ');
  const everywhere = Object.entries(common).map(([status, ref]) => `${status} (${ref})`).join(', ');
  doc.info = { ...doc.info, description: `${doc.info.description ?? ''}\n\n${COMPACT_NOTE} The grain prefixes: ${grains}. Every operation may also answer ${everywhere}: written once there, not on each operation.` };
  return doc;
}

/**
 * A namer for values written once in `into` (a components section): each
 * distinct value, by its JSON text, gets the name `nameOf` gives it when first
 * met (`n`: how many this namer named before), and that name ever after.
 */
function nameOnce(into: Record<string, unknown>) {
  const names = new Map<string, string>();
  return (value: unknown, nameOf: (n: number) => string, text = JSON.stringify(value)): string => {
    let name = names.get(text);
    if (!name) {
      name = nameOf(names.size);
      names.set(text, name);
      into[name] = value;
    }
    return name;
  };
}

/** Every operation of the document (a path item's `servers` and `parameters` are not). */
function* operationsOf(doc: OpenAPIV3_1.Document): Generator<any> {
  for (const item of Object.values<any>(doc.paths ?? {})) for (const operation of Object.values<any>(item)) if (operation && typeof operation === 'object' && !Array.isArray(operation)) yield operation;
}

/**
 * A discriminated union several components hold alike (a journal entry's and
 * a tail entry's facts: a `oneOf` of every `Fact.<kind>` and its mapping) is
 * written once, as a component named after its branches (`Fact`), and each
 * holder takes it through `allOf`: the same values, said once. (The full form
 * writes the union on each holder: openapi-typescript would read a union it
 * meets through `allOf` as the holder's own subtype and retag it.)
 */
function shareDiscriminatedUnions(doc: OpenAPIV3_1.Document): void {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, any>;
  const holders = new Map<string, string[]>();
  for (const [name, schema] of Object.entries(schemas)) {
    if (!Array.isArray(schema?.oneOf) || !schema.discriminator) continue;
    const text = JSON.stringify({ oneOf: schema.oneOf, discriminator: schema.discriminator });
    holders.set(text, [...(holders.get(text) ?? []), name]);
  }
  for (const [text, names] of holders) {
    if (names.length < 2) continue;
    const union = JSON.parse(text) as { oneOf: Array<{ $ref: string }> };
    // The branches' common prefix (`#/components/schemas/Fact.`), less its separator.
    const refs = union.oneOf.map((b) => b.$ref.replace('#/components/schemas/', ''));
    const prefix = refs.reduce((common, ref) => { let i = 0; while (i < common.length && common[i] === ref[i]) i++; return common.slice(0, i); }).replace(/[._-]+$/, '');
    let name = prefix || 'Union';
    for (let n = 2; name in schemas; n++) name = `${prefix || 'Union'}${n}`;
    schemas[name] = union;
    for (const holder of names) {
      const { oneOf: _oneOf, discriminator: _discriminator, ...rest } = schemas[holder];
      schemas[holder] = { ...rest, allOf: [...(rest.allOf ?? []), { $ref: `#/components/schemas/${name}` }] };
    }
  }
}

/** An answer at least this share of the operations give alike is said once for all of them. */
const COMMON_SHARE = 0.75;

/**
 * The answers nearly every operation gives alike (a malformed request, a
 * rate limit, an unavailable journal) are taken off each operation and
 * named once (`components.responses.Any<status>`); answers the note lists.
 * Answers by status and the shared answer's reference.
 */
function shareCommonAnswers(doc: OpenAPIV3_1.Document): Record<string, string> {
  const operations = [...operationsOf(doc)].filter((op) => op.responses);
  const uses = new Map<string, number>();
  for (const op of operations) for (const [status, answer] of Object.entries<any>(op.responses)) if (answer.$ref) uses.set(`${status} ${answer.$ref}`, (uses.get(`${status} ${answer.$ref}`) ?? 0) + 1);
  const common: Record<string, string> = {};
  const responses = doc.components!.responses as Record<string, unknown>;
  for (const [use, n] of uses) {
    if (n < operations.length * COMMON_SHARE) continue;
    const [status, ref] = use.split(' ');
    const name = `Any${status}`;
    // Renamed: no operation refers to it by its old name any more.
    const old = ref.split('/').pop()!;
    responses[name] = responses[old];
    delete responses[old];
    common[status] = `#/components/responses/${name}`;
    for (const op of operations) if (op.responses[status]?.$ref === ref) delete op.responses[status];
  }
  return common;
}

/**
 * Takes off each body's and answer's example that its schema composes from
 * its fields' own examples (`composeExample`): the compact form says each
 * value once, on its field; the full form writes the whole example out.
 */
function dropComposedExamples(doc: OpenAPIV3_1.Document): void {
  const components = (doc.components?.schemas ?? {}) as Record<string, SchemaNode>;
  const media = (content: Record<string, SchemaNode> | undefined) => {
    for (const m of Object.values(content ?? {})) if (m?.schema && 'example' in m && isDeepStrictEqual(m.example, composeExample(m.schema, components))) delete m.example;
  };
  for (const operation of operationsOf(doc)) {
    media(operation.requestBody?.content);
    for (const answer of Object.values<any>(operation.responses ?? {})) media(answer?.content);
  }
}

/** A schema written out this long or longer, and more than once, is worth a name. */
const HOIST_AT = 120;

/** The keywords under which a JSON Schema holds other schemas (an `examples` value is data, never walked). */
const SUBSCHEMAS_BY_NAME = ['properties', 'patternProperties', '$defs'] as const;
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const SUBSCHEMA = ['items', 'additionalProperties', 'not', 'contains', 'if', 'then', 'else'] as const;

/** Every place a schema sits under `schema`, as [holder, key], outermost first. */
function* subschemaSlots(schema: any): Generator<[any, string | number]> {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return;
  for (const key of SUBSCHEMA) if (schema[key] && typeof schema[key] === 'object') yield [schema, key];
  for (const key of SUBSCHEMA_LISTS) if (Array.isArray(schema[key])) for (let i = 0; i < schema[key].length; i++) yield [schema[key], i];
  for (const key of SUBSCHEMAS_BY_NAME) if (schema[key] && typeof schema[key] === 'object') for (const name of Object.keys(schema[key])) yield [schema[key], name];
}

/** The schemas the operations and shared answers hold: each request body's, parameter's and answer's media schema. */
function* rootSchemaSlots(doc: OpenAPIV3_1.Document): Generator<[any, string]> {
  const media = function* (content: any): Generator<[any, string]> {
    for (const type of Object.values<any>(content ?? {})) if (type?.schema) yield [type, 'schema'];
  };
  for (const answer of Object.values<any>(doc.components?.responses ?? {})) yield* media(answer.content);
  for (const parameter of Object.values<any>(doc.components?.parameters ?? {})) if (parameter.schema) yield [parameter, 'schema'];
  for (const operation of operationsOf(doc)) {
    yield* media(operation.requestBody?.content);
    for (const answer of Object.values<any>(operation.responses ?? {})) yield* media(answer?.content);
    for (const parameter of operation.parameters ?? []) if (parameter?.schema) yield [parameter, 'schema'];
  }
}

/** The schemas inside the named components (each component's members, items, branches), the components themselves left named. */
function* componentSchemaSlots(components: Record<string, unknown>): Generator<[any, string | number]> {
  for (const schema of Object.values(components)) yield* subschemaSlots(schema);
}

/**
 * Names each schema the compact form writes out more than once (a draft
 * artifact's fields, a page's envelope, a ladder's fields in the Asset and in
 * the ladder itself, a sha256) in `components.schemas` and refers to it: the
 * outermost repeated one, so a named schema holds its own repeats whole. The
 * same schemas, written once.
 */
function hoistRepeatedSchemas(doc: OpenAPIV3_1.Document): void {
  const components = (doc.components!.schemas ??= {}) as Record<string, unknown>;
  // The components as they stand before any is added here.
  const named = { ...components };
  const slots = () => [...rootSchemaSlots(doc), ...componentSchemaSlots(named)];
  const seen = new Map<string, number>();
  const count = (schema: any) => {
    const text = JSON.stringify(schema);
    if (text.length >= HOIST_AT) seen.set(text, (seen.get(text) ?? 0) + 1);
    for (const [holder, key] of subschemaSlots(schema)) count(holder[key]);
  };
  for (const [holder, key] of slots()) count(holder[key]);
  const schemaName = nameOnce(components);
  const replace = (holder: any, key: string | number) => {
    const text = JSON.stringify(holder[key]);
    if ((seen.get(text) ?? 0) > 1) {
      holder[key] = { $ref: `#/components/schemas/${schemaName(holder[key], (n) => `Shared${n + 1}`, text)}` };
      return;
    }
    for (const [inner, slot] of subschemaSlots(holder[key])) replace(inner, slot);
  };
  for (const [holder, key] of slots()) replace(holder, key);
}
