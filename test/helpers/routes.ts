/**
 * The routes the router itself serves, read from Fastify's own route tree
 * (`printRoutes`), independently of the OpenAPI generator, so a test can hold
 * the two equal. HEAD twins of GET routes are left out.
 */
import type { FastifyInstance } from 'fastify';

export interface ServedRoute {
  method: string;
  path: string;
}

const LINE = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+)(?: \(([^)]+)\))?$/;

export function routerRoutes(app: FastifyInstance): ServedRoute[] {
  const stack: string[] = [];
  const out: ServedRoute[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    const path = (depth > 0 ? stack[depth - 1] : '') + m[2];
    stack[depth] = path;
    stack.length = depth + 1;
    for (const method of (m[3] ?? '').split(', ').filter(Boolean)) if (method !== 'HEAD') out.push({ method, path });
  }
  return out;
}

/** `/matters/{id}` → `/matters/:id`. */
export const toFastifyPath = (openapiPath: string) => openapiPath.replace(/\{([^}]+)\}/g, ':$1');
