/**
 * Path parameters read where a request is not typed from its route's schema:
 * a hook shared by many routes, or a check that runs before validation. The
 * router has matched them, so they are text.
 */
import type { FastifyRequest } from 'fastify';

/** The parameter `name`, when the route's URL declares it. */
export function optionalParam(request: FastifyRequest, name: string): string | undefined {
  const params: unknown = request.params;
  if (params === null || typeof params !== 'object') return undefined;
  const value: unknown = Reflect.get(params, name);
  return typeof value === 'string' ? value : undefined;
}

/** The parameter `name`, which the route's URL declares (anything else is a wiring error). */
export function param(request: FastifyRequest, name: string): string {
  const value = optionalParam(request, name);
  if (value === undefined) throw new Error(`${request.routeOptions.url} declares no :${name}`);
  return value;
}
