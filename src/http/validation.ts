/**
 * Request validation. Bodies are JSON and validated strictly: no coercion (the
 * string "true" is not `true`), unknown properties refused, not dropped.
 * Query strings and path parameters arrive as text, so they alone may coerce.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { COMPONENTS } from './schemas/components.ts';

/** What a schema compiler hands Fastify: a validator, with the errors of its last call. */
type Validate = ReturnType<FastifySchemaCompiler<object>>;

const strict = new Ajv({ coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false, strict: false });
const coercing = new Ajv({ coerceTypes: true, removeAdditional: false, useDefaults: true, allErrors: false, strict: false });
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

/** One sentence per failure, naming the field and what it must be. */
function describeValidation(errors: FastifySchemaValidationError[], dataVar: string): string {
  return errors
    .map((e) => {
      const where = `${dataVar}${e.instancePath.replace(/\//g, '.')}`;
      switch (e.keyword) {
        case 'additionalProperties':
          return `${where} has an unknown field "${e.params.additionalProperty}"`;
        case 'required':
          return `${where} is missing the required field "${e.params.missingProperty}"`;
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
