/**
 * The MCP tool list as an agent reads it (issue 19, item 6): through the
 * official SDK client, `tools/list`, and for every tool:
 * - its description says WHAT it does: it opens with the door it calls
 *   (`GET /…`, `POST /…`, or "GET any path");
 * - WHEN to use it: a sentence that starts "Use it" (or "Use this");
 * - what a REFUSAL means: a sentence about refusals that names at least one
 *   refusal code, and every code the description names is one the service
 *   (its catalog) or this server (SERVICE_UNREACHABLE) really answers;
 * - it fits an agent's context: at most 1,200 characters;
 * and every property of its input schema has a `description` and `examples`,
 * each example valid by the property's own schema.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient } from '../src/client/service-client.ts';
import { REFUSALS } from '../src/domain/refusals.ts';
import { createMcpServer } from '../src/mcp/server.ts';

/** Codes the MCP server answers itself, beside the service's catalog. */
const SERVER_CODES = ['SERVICE_UNREACHABLE'];
const KNOWN_CODES = new Set([...Object.keys(REFUSALS), ...SERVER_CODES]);
const MAX_DESCRIPTION = 1200;

const WHAT = /^(GET|POST|PUT|DELETE) (\/|any path)/;
const WHEN = /(^|[.;:] )Use (it|this)\b/;
/** A code-shaped word: upper case with an underscore (LEGALWORK_* settings are not codes). */
const CODE = /\b(?!LEGALWORK_)[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b/g;

/** Why a tool's description falls short, or [] when it says what, when and what a refusal means. */
export function descriptionProblems(description: string | undefined): string[] {
  if (!description) return ['no description'];
  const problems: string[] = [];
  if (!WHAT.test(description)) problems.push('does not open with the door it calls (GET /…, POST /…)');
  if (!WHEN.test(description)) problems.push('says nothing of when to use it (a sentence starting "Use it")');
  const sentences = description.split(/(?<=[.!?])\s+(?=[A-Z0-9])/);
  const refusalSentences = sentences.filter((s) => /refus/i.test(s));
  if (!refusalSentences.some((s) => (s.match(CODE) ?? []).length > 0)) problems.push('names no refusal code where it speaks of refusals');
  const unknown = (description.match(CODE) ?? []).filter((code) => !KNOWN_CODES.has(code));
  if (unknown.length) problems.push(`names codes no one answers: ${[...new Set(unknown)].join(', ')}`);
  if (description.length > MAX_DESCRIPTION) problems.push(`is ${description.length} characters, more than ${MAX_DESCRIPTION}`);
  return problems;
}

const ajv = new Ajv({ strict: false, allErrors: true });

/** Why a property falls short, or [] when it has a description and examples its own schema accepts. */
export function propertyProblems(property: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (typeof property.description !== 'string' || property.description.trim().length < 8) problems.push('no description');
  const examples = property.examples;
  if (!Array.isArray(examples) || examples.length === 0) return [...problems, 'no examples'];
  const { description: _d, examples: _e, default: _default, ...schema } = property;
  const validate = ajv.compile(schema);
  for (const example of examples) if (!validate(example)) problems.push(`example ${JSON.stringify(example)} is refused by its own schema: ${ajv.errorsText(validate.errors)}`);
  return problems;
}

let client: Client;
let tools: Tool[];

beforeAll(async () => {
  // tools/list needs no service: the address is never called.
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createMcpServer(new ServiceClient({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 1_000 }));
  await server.connect(serverSide);
  client = new Client({ name: 'legalwork-tools-test', version: '1.0.0' });
  await client.connect(clientSide);
  ({ tools } = await client.listTools());
});
afterAll(async () => {
  await client.close();
});

describe('the rules themselves', () => {
  it('fail a description without its door, its use or its refusal, and one naming a code nobody answers', () => {
    const good = 'GET /matters/{id}: the Matter. Use it to poll. Refused 404 MATTER_NOT_FOUND: no such Matter.';
    expect(descriptionProblems(good)).toEqual([]);
    expect(descriptionProblems('the Matter. Use it to poll. Refused 404 MATTER_NOT_FOUND.')).toHaveLength(1);
    expect(descriptionProblems('GET /matters/{id}: the Matter. Refused 404 MATTER_NOT_FOUND.')).toHaveLength(1);
    expect(descriptionProblems('GET /matters/{id}: the Matter. Use it to poll. Errors come back as errors.')).toHaveLength(1);
    expect(descriptionProblems('GET /matters/{id}: the Matter. Use it to poll. Refused 404 MATTER_GONE.')).toEqual(['names codes no one answers: MATTER_GONE']);
    expect(descriptionProblems(`${good} ${'x'.repeat(MAX_DESCRIPTION)}`)).toHaveLength(1);
  });

  it('fail a property without a description, without examples, or with an example its schema refuses', () => {
    expect(propertyProblems({ type: 'integer', minimum: 1, description: 'how many days pass', examples: [1] })).toEqual([]);
    expect(propertyProblems({ type: 'integer', examples: [1] })).toEqual(['no description']);
    expect(propertyProblems({ type: 'integer', description: 'how many days pass' })).toEqual(['no examples']);
    expect(propertyProblems({ type: 'integer', minimum: 1, description: 'how many days pass', examples: [0] })).toHaveLength(1);
  });
});

describe('tools/list through the SDK client', () => {
  it('lists the tools', () => {
    expect(tools.length).toBeGreaterThanOrEqual(13);
  });

  it('gives every tool a description that says what it does, when to use it, and what a refusal means', () => {
    const failing = Object.fromEntries(tools.map((t) => [t.name, descriptionProblems(t.description)]).filter(([, problems]) => problems.length));
    expect(failing).toEqual({});
  });

  it('gives every input property a description and examples its schema accepts', () => {
    const failing: Record<string, string[]> = {};
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
        const problems = propertyProblems(property as Record<string, unknown>);
        if (problems.length) failing[`${tool.name}.${name}`] = problems;
      }
    }
    expect(failing).toEqual({});
  });

  it('takes a call built from the examples alone: the first example of every property passes the tool\'s input schema', () => {
    for (const tool of tools) {
      const args = Object.fromEntries(Object.entries(tool.inputSchema.properties ?? {}).map(([name, p]) => [name, (p as { examples: unknown[] }).examples[0]]));
      const { $schema: _s, ...schema } = tool.inputSchema as Record<string, unknown>;
      const validate = ajv.compile(schema);
      expect(validate(args), `${tool.name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });
});
