/**
 * Which methods a path is served by, for the 405 that names them: a request
 * whose path exists under another method is answered 405 with an `Allow`
 * header (RFC 9110 §15.5.6), not 404 as if the path did not exist.
 *
 * Fastify's own router answers only "this method and path" or nothing, so
 * every route is also recorded here, in a find-my-way router of the same
 * version and matching rules, as it is added.
 */
import FindMyWay from 'find-my-way';
import type { FastifyInstance, HTTPMethods } from 'fastify';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export class AllowedMethods {
  private readonly router = FindMyWay();

  constructor(app: FastifyInstance) {
    app.addHook('onRoute', (route) => {
      for (const given of ([] as HTTPMethods[]).concat(route.method)) {
        const method = METHODS.find((m) => m === given.toUpperCase());
        // A route registered twice under one method (a prefix mounted again) is one door.
        if (method && !this.router.hasRoute(method, route.url)) this.router.on(method, route.url, () => undefined);
      }
    });
  }

  /** The methods that serve `path`, in a fixed order; empty when none does. */
  of(path: string): string[] {
    return METHODS.filter((method) => this.router.find(method, path) !== null);
  }
}
