/**
 * The fuzzer's reading of the service's own `/openapi.json`: every operation
 * with its parameters, its request body's media types and schemas (with
 * `$ref`s resolved against the document's components), the statuses it
 * declares and the refusal codes it declares per status (`x-refusal-codes`).
 */
export type Schema = Record<string, any>;

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  /** `POST /workspaces/{workspaceId}/matters` */
  key: string;
  method: string;
  template: string;
  operationId: string;
  params: Param[];
  /** Media type -> schema; undefined when the operation takes no body. */
  body?: { required: boolean; content: Record<string, Schema> };
  /** The statuses the operation declares. */
  statuses: Set<number>;
  /** Status -> the refusal codes declared for it. */
  codes: Map<number, Set<string>>;
  /** Keyed by the contract (`security: [{bearer: []}]`). */
  keyed: boolean;
  /** The grain prefix its template starts with. */
  prefix: 'workspaces' | 'tenants' | 'firms' | 'top';
}

export interface OpenApiDoc {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, Schema> };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Resolves `$ref: #/components/schemas/X` (recursively, once per schema object). */
export function resolver(doc: OpenApiDoc) {
  const cache = new Map<string, Schema>();
  const resolve = (schema: Schema | undefined): Schema => {
    if (!schema || typeof schema !== 'object') return {};
    if (typeof schema.$ref === 'string') {
      const name = schema.$ref.replace('#/components/schemas/', '');
      if (!cache.has(name)) {
        cache.set(name, {});
        cache.set(name, Object.assign(cache.get(name)!, resolve(doc.components.schemas[name])));
      }
      return cache.get(name)!;
    }
    const out: Schema = { ...schema };
    if (schema.properties) out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, resolve(v as Schema)]));
    if (schema.items && typeof schema.items === 'object') out.items = resolve(schema.items);
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object') out.additionalProperties = resolve(schema.additionalProperties);
    for (const k of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(schema[k])) out[k] = schema[k].map(resolve);
    return out;
  };
  return resolve;
}

export function operationsOf(doc: OpenApiDoc): Operation[] {
  const resolve = resolver(doc);
  const ops: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params: Param[] = (op.parameters ?? []).map((p: any) => ({ name: p.in === 'header' ? String(p.name).toLowerCase() : p.name, in: p.in, required: !!p.required, schema: resolve(p.schema) }));
      const body = op.requestBody
        ? { required: !!op.requestBody.required, content: Object.fromEntries(Object.entries(op.requestBody.content ?? {}).map(([media, c]: [string, any]) => [media, resolve(c.schema)])) }
        : undefined;
      const codes = new Map<number, Set<string>>();
      for (const [status, list] of Object.entries(op['x-refusal-codes'] ?? {})) codes.set(Number(status), new Set(list as string[]));
      const first = template.split('/')[1];
      ops.push({
        key: `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        template,
        operationId: op.operationId,
        params,
        body,
        statuses: new Set(Object.keys(op.responses ?? {}).map(Number)),
        codes,
        keyed: Array.isArray(op.security) && op.security.some((s: any) => 'bearer' in s),
        prefix: first === 'workspaces' && template !== '/workspaces' ? 'workspaces' : first === 'tenants' && template !== '/tenants' ? 'tenants' : first === 'firms' && template !== '/firms' ? 'firms' : 'top',
      });
    }
  }
  return ops;
}

/** Every (status, code) pair any operation declares: what a request whose route was mutated away may be answered with. */
export function anyDeclared(ops: Operation[]): Map<number, Set<string>> {
  const all = new Map<number, Set<string>>();
  for (const op of ops) {
    for (const [status, codes] of op.codes) {
      if (!all.has(status)) all.set(status, new Set());
      for (const c of codes) all.get(status)!.add(c);
    }
  }
  return all;
}

/** The documented operation a concrete method and path answer under (static segments win), or undefined. */
export function matcher(ops: Operation[]) {
  const routes = ops
    .map((op) => ({
      op,
      re: new RegExp(`^${op.template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
      statics: op.template.split('/').filter((s) => s && !s.startsWith('{')).length,
    }))
    .sort((a, b) => b.statics - a.statics);
  return (method: string, path: string): Operation | undefined => {
    const m = method === 'HEAD' ? 'GET' : method;
    return routes.find((r) => r.op.method === m && r.re.test(path))?.op;
  };
}
