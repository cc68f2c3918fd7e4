/**
 * Holds real responses to the published contract: each answer is matched to
 * its documented operation and status (exact, else the `4XX`-style range),
 * its media type must be documented, and a JSON body is validated with Ajv
 * (JSON Schema 2020-12, as OpenAPI 3.1 uses) against the documented schema.
 * Records which operations answered with which statuses, for coverage.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import { call, type TestApp } from './app.ts';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>> };

const pointer = (...parts: string[]) => parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

export class ContractChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  private readonly routes: Array<{ template: string; re: RegExp; statics: number }>;
  /** `METHOD /template` → the statuses it answered with, each validated. */
  readonly seen = new Map<string, Set<number>>();

  constructor(
    private readonly app: TestApp,
    readonly doc: Doc,
  ) {
    this.ajv.addSchema(doc as object, 'openapi');
    this.routes = Object.keys(doc.paths)
      .map((template) => ({
        template,
        re: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
        statics: template.split('/').filter((s) => s && !s.startsWith('{')).length,
      }))
      .sort((a, b) => b.statics - a.statics);
  }

  /** The documented path template a concrete URL answers under (static segments win). */
  templateOf(method: string, url: string): string {
    const path = url.split('?')[0];
    const found = this.routes.find((r) => r.re.test(path) && this.doc.paths[r.template][method.toLowerCase()]);
    if (!found) throw new Error(`no documented operation for ${method} ${path}`);
    return found.template;
  }

  /** Calls the app and holds the answer to the contract. */
  async hit(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await call(this.app, method, url, body, headers);
    const template = this.templateOf(method, url);
    const where = `${method} ${url} -> ${res.status}`;
    const responses = this.doc.paths[template][method.toLowerCase()].responses;
    const key = [String(res.status), `${String(res.status)[0]}XX`, 'default'].find((k) => responses[k]);
    expect(key, `${where}: status not documented`).toBeDefined();
    const media = String(res.headers['content-type'] ?? '').split(';')[0].trim();
    const content = responses[key!].content?.[media];
    expect(content, `${where}: media type ${media} not documented for ${key}`).toBeDefined();
    if (media === 'application/json') {
      const validate = this.ajv.getSchema(`openapi#/${pointer('paths', template, method.toLowerCase(), 'responses', key!, 'content', media, 'schema')}`);
      expect(validate, `${where}: no schema`).toBeDefined();
      const valid = validate!(res.body);
      expect(valid ? [] : validate!.errors, `${where}: ${res.raw.slice(0, 400)}`).toEqual([]);
    } else {
      expect(typeof res.raw).toBe('string');
      expect(res.raw.length, where).toBeGreaterThan(0);
    }
    const op = `${method} ${template}`;
    if (!this.seen.has(op)) this.seen.set(op, new Set());
    this.seen.get(op)!.add(res.status);
    return res;
  }

  /** Does the operation document a 2xx answer? */
  documentsSuccess(op: string): boolean {
    const [method, template] = op.split(' ');
    return Object.keys(this.doc.paths[template][method.toLowerCase()].responses).some((s) => s.startsWith('2'));
  }

  /** Every documented operation, as `METHOD /template`. */
  operations(): string[] {
    return Object.entries(this.doc.paths).flatMap(([template, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${template}`));
  }
}
