/**
 * Request validation. Bodies are JSON and validated strictly: no coercion (the
 * string "true" is not `true`), unknown properties refused, not dropped.
 * Query strings and path parameters arrive as text, so they alone may coerce.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { Refusal } from '../domain/refusal.ts';
import { refusal } from '../domain/refusals.ts';
import { COMPONENTS } from '../schemas/components.ts';

/** What a schema compiler hands Fastify: a validator, with the errors of its last call. */
type Validate = ReturnType<FastifySchemaCompiler<object>>;

// `verbose`: a failure carries the schema it broke, so a refusal can show the form and an example to send (`validationRefusal`).
const strict = new Ajv({ verbose: true, coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false, strict: false });
const coercing = new Ajv({ verbose: true, coerceTypes: true, removeAdditional: false, useDefaults: true, allErrors: false, strict: false });
// A request schema may point at a named component (a closed set such as AssetKind).
for (const component of COMPONENTS) for (const ajv of [strict, coercing]) ajv.addSchema(component);

/**
 * Each route's validator compiles on the route's first request, not at boot:
 * compiling every schema of every route (once per grain prefix) was a fifth of
 * the start-up, and a restart must answer its first request fast. Fastify
 * reads `errors` off the function it is given, so they pass through from the
 * compiled one.
 */
const compiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strict : coercing;
  let compiled: ValidateFunction | undefined;
  const validate: Validate = (data: unknown) => {
    compiled ??= ajv.compile(schema);
    const result = compiled(data);
    validate.errors = compiled.errors;
    return result;
  };
  return validate;
};

export function installValidation(app: FastifyInstance) {
  app.setValidatorCompiler(compiler);
  app.setSchemaErrorFormatter((errors, dataVar) => new Error(describeValidation(errors, dataVar)));
}

/** An Ajv error as Fastify hands it on, with what `verbose` adds: the schema that failed and the one around it. */
type Failure = FastifySchemaValidationError & { schema?: unknown; parentSchema?: Record<string, any> };

const quote = (v: unknown) => JSON.stringify(v);
const listOf = (values: unknown[]) => values.map(quote).join(', ');
const pathOf = (dataVar: string, instancePath: string) => `${dataVar}${instancePath.replace(/\//g, '.')}`;

/** The field a failure names: the property itself where the failure is about one (missing or unknown), else where it failed. */
function fieldOf(e: Failure, dataVar: string): string {
  const where = pathOf(dataVar, e.instancePath);
  if (e.keyword === 'required') return `${where}.${e.params.missingProperty}`;
  if (e.keyword === 'additionalProperties') return `${where}.${e.params.additionalProperty}`;
  return where;
}

/** A value the schema shows for the field (its first example, its default, its first allowed value), worded as ", e.g. …". */
function exampleOf(schema: Record<string, any> | undefined): string {
  if (!schema || typeof schema !== 'object') return '';
  const shown = Array.isArray(schema.examples) && schema.examples.length ? schema.examples[0] : schema.default !== undefined ? schema.default : Array.isArray(schema.enum) ? schema.enum[0] : schema.const;
  return shown === undefined ? '' : `, e.g. ${quote(shown)}`;
}
/** Where the schema shows no value: the form it takes (its pattern, its allowed values, its type), worded as ", …". */
function formOf(schema: Record<string, any> | undefined): string {
  if (!schema || typeof schema !== 'object') return '';
  if (typeof schema.pattern === 'string') return `, in the form ${quote(schema.pattern)}`;
  if (Array.isArray(schema.enum)) return `, one of ${listOf(schema.enum)}`;
  return typeof schema.type === 'string' ? `, a JSON ${schema.type}` : '';
}
const describedBy = (schema: Record<string, any> | undefined) => (typeof schema?.description === 'string' ? ` (${schema.description})` : '');

/** The values a failure accepts, where they are a closed set (on the refusal as `accepted`). */
function acceptedBy(e: Failure): string[] | undefined {
  if (e.keyword === 'enum') return (Array.isArray(e.params.allowedValues) ? e.params.allowedValues : [e.params.allowedValues]).map(String);
  if (e.keyword === 'const') return [String(e.params.allowedValue)];
  return undefined;
}

/** What to send instead, worded for an agent: the field, the rule it broke and a value it accepts. */
function fixFor(e: Failure, dataVar: string): string {
  const field = quote(fieldOf(e, dataVar));
  const own = e.parentSchema;
  switch (e.keyword) {
    case 'required': {
      const wanted = own?.properties?.[e.params.missingProperty as string];
      return `send ${field}: it is required${exampleOf(wanted) || formOf(wanted)}${describedBy(wanted)}`;
    }
    case 'additionalProperties': {
      const known = Object.keys(own?.properties ?? {});
      return `leave ${field} out (check its spelling): ${quote(pathOf(dataVar, e.instancePath))} takes ${known.length ? listOf(known) : 'no fields'}`;
    }
    case 'enum':
    case 'const':
      return `send ${field} as one of ${listOf(acceptedBy(e) ?? [])}`;
    case 'type': {
      const type = String(e.params.type);
      const unquoted = /number|integer|boolean/.test(type) && dataVar === 'body' ? ', unquoted: the string "5" is not the number 5' : '';
      return `send ${field} as a JSON ${type.replace(',', ' or ')}${unquoted}${exampleOf(own)}`;
    }
    case 'pattern':
      return `send ${field} in the form ${quote(e.params.pattern)}${exampleOf(own)}${describedBy(own)}`;
    case 'format':
      return `send ${field} as a ${e.params.format}${exampleOf(own)}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `send ${field} ${e.params.comparison} ${e.params.limit}${exampleOf(own)}`;
    case 'minLength':
    case 'maxLength':
      return `send ${field} with ${e.keyword === 'minLength' ? 'at least' : 'at most'} ${e.params.limit} characters${exampleOf(own)}`;
    case 'minItems':
    case 'maxItems':
      return `send ${field} with ${e.keyword === 'minItems' ? 'at least' : 'at most'} ${e.params.limit} items`;
    case 'uniqueItems':
      return `send ${field} without repeats (items ${e.params.j} and ${e.params.i} are the same)`;
    default:
      return `send ${field} as the operation's schema in /openapi.json says${describedBy(own)}`;
  }
}

/**
 * The 422 a request that breaks its schema is answered: the sentence Fastify
 * was given (`describeValidation`), and the `field` it names, the values it
 * `accepted` where they are a closed set, and a `fix` naming what to send.
 */
export function validationRefusal(errors: FastifySchemaValidationError[], dataVar: string, detail: string): Refusal {
  const first = errors[0] as Failure | undefined;
  if (!first) return refusal('INVALID_REQUEST', { detail });
  const accepted = acceptedBy(first);
  return refusal('INVALID_REQUEST', { detail }, { field: fieldOf(first, dataVar), ...(accepted ? { accepted } : {}), fix: fixFor(first, dataVar) });
}

/** One sentence per failure, naming the field and what it must be. */
function describeValidation(errors: FastifySchemaValidationError[], dataVar: string): string {
  return errors
    .map((e) => {
      const where = pathOf(dataVar, e.instancePath);
      switch (e.keyword) {
        case 'additionalProperties':
          return `${where} has an unknown field "${e.params.additionalProperty}" (${where}.${e.params.additionalProperty})`;
        case 'required':
          return `${where} is missing the required field "${e.params.missingProperty}" (${where}.${e.params.missingProperty})`;
        case 'enum': {
          const allowed = e.params.allowedValues;
          return `${where} must be one of ${(Array.isArray(allowed) ? allowed : [allowed]).map((v) => JSON.stringify(v)).join(', ')}`;
        }
        default:
          return `${where} ${e.message ?? 'is invalid'}`;
      }
    })
    .join('; ');
}
