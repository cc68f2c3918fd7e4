/**
 * The contract's examples (issue 19): each path parameter's, by where it
 * stands, and each body's and answer's, composed from the examples its
 * fields carry, so an agent can build every request from the document alone.
 */
/**
 * The example of each path parameter, by the segment it follows. An id's
 * example shows its form; the record itself comes from the door named in the
 * description (a fresh service holds no Matter or grain until one is opened;
 * `test/contract-examples.test.ts` opens them with the create doors' own examples).
 */
export const PATH_EXAMPLES: Record<string, { example: string; description: string }> = {
  'workspaces/workspaceId': { example: 'ws_3x7k2p9q1m8v4c6n0b5z2r7t1', description: 'the workspace grain\'s id: `workspace.id` from POST /workspaces (unknown or expired: 404 WORKSPACE_NOT_FOUND)' },
  'tenants/tenantId': { example: 'tn_1q9w3e7r5t2y8u4i6o0p3a5s7', description: 'the tenant grain\'s id: `tenant.id` from POST /tenants (unknown or expired: 404 TENANT_NOT_FOUND)' },
  'firms/firmId': { example: 'fm_5d8f2g6h1j9k3l7z4x0c2v6b8', description: 'the firm grain\'s id: `firm.id` from POST /firms (unknown or expired: 404 FIRM_NOT_FOUND)' },
  'matters/id': { example: 'mt_0k4n8b2v6c1x9z3l7j5h2g8f4', description: 'the Matter\'s id: `matter.id` from POST /matters in the same grain' },
  'assets/id': { example: 'as_2m6n0b4v8c3x7z1l5k9j3h7g1', description: 'the Asset\'s id: `matter.assetId` of the Matter that minted it' },
  'deadlines/assetId': { example: 'as_2m6n0b4v8c3x7z1l5k9j3h7g1', description: 'the Asset whose ladder this is: `matter.assetId` (every Matter opens its Asset\'s ladder)' },
  'webhooks/id': { example: 'wh_7v1c5x9z3l8k2j6h0g4f8d2s6', description: 'the webhook endpoint\'s id: `webhook.id` from POST /webhooks' },
  'deliveries/deliveryId': { example: 'dl_9f86d081884c7d659a2feaa0c55ad015', description: 'a delivery\'s id: `deliveryId` of an attempt in GET /webhooks/{id}/deliveries (one not made to this endpoint: 404 WEBHOOK_DELIVERY_NOT_FOUND)' },
  'enrollments/memberId': { example: 'mb_fixture_eligible', description: 'the member, by id: a fixture member from GET /firms/{firmId}/fixtures' },
  'conflicts/practitionerId': { example: 'pr_ada_lovelace', description: 'the practitioner whose ledger this is: any id you choose (1-64 letters, digits, `_ . : -`); each practitioner\'s ledger is its own' },
  'diagrams/file': { example: 'matter.svg', description: 'a diagram\'s file name, as /docs lists them: matter.svg, deadline-ladder.svg, enrollment.svg' },
  'scripts/file': { example: 'inspector.7QXK2M4A.js', description: 'a page\'s script, by the name its page gives it: `<page>.<content hash>.js` (one of an earlier build: 404 SCRIPT_NOT_FOUND)' },
};

/** A JSON Schema as the document holds it, read loosely. */
export type SchemaNode = Record<string, any>;

/**
 * An example of a schema, composed from the examples its pieces carry: the
 * schema's own, else a component's (through `$ref`), a `const`, the first of
 * an `enum`, a `default`, the first branch of a union, an object of its
 * required members (and the optional ones that carry an example), an array
 * of one item. A string with no example of its own has none (so a request
 * body with a bare required string is left without one, and the example
 * test says so); a number is its minimum, a boolean `false`.
 */
export function composeExample(schema: SchemaNode | undefined, components: Record<string, SchemaNode>, depth = 0): unknown {
  if (!schema || typeof schema !== 'object' || depth > 12) return undefined;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if ('example' in schema) return schema.example;
  if (typeof schema.$ref === 'string') return composeExample(components[schema.$ref.replace('#/components/schemas/', '')], components, depth + 1);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if ('default' in schema) return schema.default;
  for (const union of [schema.anyOf, schema.oneOf]) {
    if (!Array.isArray(union)) continue;
    for (const branch of union) {
      const found = composeExample(branch, components, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  if (type === 'object' || (!type && schema.properties)) {
    const out: Record<string, unknown> = {};
    for (const [name, member] of Object.entries<SchemaNode>(schema.properties ?? {})) {
      const required = (schema.required ?? []).includes(name);
      if (!required && !(Array.isArray(member.examples) && member.examples.length) && !('example' in member)) continue;
      const value = composeExample(member, components, depth + 1);
      if (value === undefined) {
        if (required) return undefined;
        continue;
      }
      out[name] = value;
    }
    return out;
  }
  if (type === 'array') {
    const item = composeExample(schema.items, components, depth + 1);
    if (item === undefined) return (schema.minItems ?? 0) > 0 ? undefined : [];
    return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => item);
  }
  if (type === 'integer' || type === 'number') return schema.minimum ?? 0;
  if (type === 'boolean') return false;
  return undefined;
}

/** Gives a media object (a request body's, a success answer's) the example its schema composes, unless it carries its own. */
export function exampleMedia(media: SchemaNode | undefined, components: Record<string, SchemaNode>): void {
  if (!media || 'example' in media || 'examples' in media || !media.schema) return;
  const example = composeExample(media.schema, components);
  if (example !== undefined) media.example = example;
}
