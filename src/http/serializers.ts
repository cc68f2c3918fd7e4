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
 */
import { createHash } from 'node:crypto';
import type { SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import fastJson, { type Schema } from 'fast-json-stringify';

type Serializer = ReturnType<ReturnType<SerializerFactory>>;
const compiled = new Map<string, Serializer>();

/** Fastify's `schemaController.compilersFactory.buildSerializer`: the shared schemas it is given are the contract's components. */
export const buildSerializer: SerializerFactory = (externalSchemas, serializerOpts = {}) => {
  // Fastify hands its shared schemas (added with addSchema) keyed by $id.
  const external = (externalSchemas ?? {}) as Record<string, Schema>;
  const options = { ...serializerOpts, schema: external };
  // Two apps with the same components share serializers; a different set never does.
  const components = createHash('sha256').update(JSON.stringify(external)).digest('hex');
  return ({ schema }) => {
    const key = `${components}:${JSON.stringify(schema)}`;
    let serializer = compiled.get(key);
    if (!serializer) {
      let compiledSerializer: Serializer | undefined;
      // Fastify hands each route's response schema for one status: a JSON Schema object.
      serializer = (data) => (compiledSerializer ??= fastJson(schema as Schema, options))(data);
      compiled.set(key, serializer);
    }
    return serializer;
  };
};
