/**
 * Request validation. Bodies are JSON and validated strictly: no coercion (the
 * string "true" is not `true`), unknown properties refused, not dropped.
 * Query strings and path parameters arrive as text, so they alone may coerce.
 */
import { Ajv, type ErrorObject } from 'ajv';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';

const strict = new Ajv({ coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false, strict: false });
const coercing = new Ajv({ coerceTypes: true, removeAdditional: false, useDefaults: true, allErrors: false, strict: false });

type Validate = ((data: unknown) => unknown) & { errors?: ErrorObject[] | null };

/**
 * Each route's validator compiles on the route's first request, not at boot:
 * compiling every schema of every route (once per grain prefix) was a fifth of
 * the start-up, and a restart must answer its first request fast. Fastify
 * reads `errors` off the function it is given, so they pass through from the
 * compiled one.
 */
const compiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strict : coercing;
  let compiled: Validate | undefined;
  const validate: Validate = (data) => {
    compiled ??= ajv.compile(schema) as Validate;
    const result = compiled(data);
    validate.errors = compiled.errors;
    return result;
  };
  return validate as never;
};

export function installValidation(app: FastifyInstance) {
  app.setValidatorCompiler(compiler);
  app.setSchemaErrorFormatter((errors, dataVar) => new Error(describeValidation(errors as ErrorObject[], dataVar)));
}

/** One sentence per failure, naming the field and what it must be. */
function describeValidation(errors: ErrorObject[], dataVar: string): string {
  return errors
    .map((e) => {
      const where = `${dataVar}${e.instancePath.replace(/\//g, '.')}`;
      switch (e.keyword) {
        case 'additionalProperties':
          return `${where} has an unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
        case 'required':
          return `${where} is missing the required field "${(e.params as { missingProperty: string }).missingProperty}"`;
        case 'enum':
          return `${where} must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
        default:
          return `${where} ${e.message ?? 'is invalid'}`;
      }
    })
    .join('; ');
}
