/**
 * Facts typed by kind (issue 33, item 4): each kind a door answers has its
 * `data` declared, closed, once (`Fact.<kind>`, src/schemas/facts.ts);
 * a journal or tail entry is a `oneOf` of them discriminated by `kind`, so a
 * client generated from the contract (src/client/contract.gen.ts) narrows a
 * fact's data by its kind, the reply check holds every fact to its kind's
 * schema, and the serializer writes each as its kind declares it (a projector
 * per kind, chosen by `kind`: src/http/serializers.ts), so nothing undeclared
 * leaves.
 *
 * The type-level assertions below are checked by the typecheck (`tsc
 * --noEmit`, which `npm test` runs over test/ too); at run time they are no-ops.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { components } from '../src/client/contract.gen.ts';
import { EVENT_KINDS, INTERNAL_EVENT_KINDS } from '../src/domain/event-kinds.ts';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { COMPONENTS } from '../src/schemas/components.ts';
import { buildSerializer } from '../src/http/serializers.ts';
import { call, testApp, workspace, type TestApp } from './helpers/app.ts';

type Schemas = components['schemas'];
type JournalEntry = Schemas['JournalEntry'];
type TailEntry = Schemas['TailEntry'];

/** What a generated client writes: `kind` narrows the entry, and with it `data`. */
function attestationOf(entry: JournalEntry) {
  if (entry.kind !== 'stage') return undefined;
  return entry.data.attestation;
}
function gigOf(entry: TailEntry): string | undefined {
  switch (entry.kind) {
    case 'gig.posted':
      return entry.data.gigId;
    case 'stage':
      return entry.data.gigId;
    case 'capability.escalated':
      return entry.data.gigId;
    default:
      return undefined;
  }
}

let app: TestApp;
let doc: any;
beforeAll(async () => {
  app = await testApp();
  doc = (await call(app, 'GET', '/openapi.json')).body;
});
afterAll(async () => app.close());

describe('a generated client', () => {
  it('narrows a fact by its kind: a stage fact\'s data.attestation is typed, a gig.posted fact has none', () => {
    expectTypeOf(attestationOf).returns.toEqualTypeOf<Schemas['Attestation'] | undefined>();
    expectTypeOf<Extract<JournalEntry, { kind: 'gig.posted' }>['data']>().toEqualTypeOf<{ reservedAct: Schemas['ReservedAct']; gigId: string }>();
    expectTypeOf<Extract<TailEntry, { kind: 'reminder.ack_due' }>['data']>().toEqualTypeOf<Schemas['ReminderData']>();
    expectTypeOf<Extract<JournalEntry, { kind: 'matter.opened' }>['data']['clientFixture']>().toEqualTypeOf<'declining' | 'fulfilling' | null>();
    const posted = { kind: 'gig.posted', data: { reservedAct: 'sign', gigId: 'gig_1' } } as Extract<JournalEntry, { kind: 'gig.posted' }>;
    // @ts-expect-error a gig.posted fact carries no attestation
    expect(posted.data.attestation).toBeUndefined();
    // A kind the contract does not answer is no entry's.
    expectTypeOf<Extract<JournalEntry, { kind: 'key.issued' }>>().toBeNever();
  });

  it('reads a Matter\'s journal and a tail as typed facts', async () => {
    const ws = await workspace(app);
    const { matter } = (await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', client: { name: FIXTURE.fulfillingClient } })).body;
    for (let i = 0; i < 5; i++) expect((await call(app, 'POST', `${ws}/matters/${matter.id}/advance`, {})).status).toBe(200);
    const journal: JournalEntry[] = (await call(app, 'GET', `${ws}/matters/${matter.id}`)).body.journal;
    const attestations = journal.map(attestationOf).filter((a) => a !== undefined);
    expect(attestations.map((a) => a.signedBy)).toEqual([FIXTURE.eligibleSigner, FIXTURE.eligibleSigner]);
    const tail: TailEntry[] = (await call(app, 'GET', `${ws}/events?limit=100`)).body.results;
    const gigs = tail.map(gigOf).filter((g) => g !== undefined);
    // Two Gigs, each posted and then answered by its attestation.
    expect(gigs).toHaveLength(4);
    expect(new Set(gigs).size).toBe(2);
  });
});

describe('the contract', () => {
  it('declares each answered kind once, as Fact.<kind> with its data closed, and no internal kind', () => {
    const schemas = doc.components.schemas;
    const kinds = Object.keys(EVENT_KINDS);
    expect(schemas.EventKind.enum).toEqual(kinds);
    for (const kind of kinds) {
      const fact = schemas[`Fact.${kind}`];
      expect(fact?.properties.kind.enum, kind).toEqual([kind]);
      const data = fact.properties.data;
      // Closed: by its own `additionalProperties`, or (a rung, shared with the reminder webhooks) by `unevaluatedProperties` beside the shared fields.
      expect(data.additionalProperties === false || data.unevaluatedProperties === false, kind).toBe(true);
    }
    for (const kind of Object.keys(INTERNAL_EVENT_KINDS)) {
      expect(schemas[`Fact.${kind}`], kind).toBeUndefined();
      expect(schemas.EventKind.enum, kind).not.toContain(kind);
    }
  });

  it('makes the journal and the tail a oneOf of every kind, discriminated by kind with its mapping', () => {
    for (const name of ['JournalEntry', 'TailEntry']) {
      const entry = doc.components.schemas[name];
      expect(entry.additionalProperties, name).toBe(false);
      expect(entry.oneOf.map((b: { $ref: string }) => b.$ref), name).toEqual(Object.keys(EVENT_KINDS).map((k) => `#/components/schemas/Fact.${k}`));
      expect(entry.discriminator.propertyName, name).toBe('kind');
      for (const kind of Object.keys(EVENT_KINDS)) expect(entry.discriminator.mapping[kind], `${name} ${kind}`).toBe(`#/components/schemas/Fact.${kind}`);
    }
    // The journal under every grain and the tails answer them by reference.
    expect(doc.paths['/matters/{id}'].get.responses['200'].content['application/json'].schema.properties.journal.items.$ref).toBe('#/components/schemas/JournalEntry');
    // A tail's entry is the event, or the UnreadableEntry in its place (a body that does not read).
    expect(doc.paths['/workspaces/{workspaceId}/events'].get.responses['200'].content['application/json'].schema.anyOf[0].properties.results.items.oneOf.map((o: { $ref: string }) => o.$ref)).toEqual(['#/components/schemas/TailEntry', '#/components/schemas/UnreadableEntry']);
    // The reminder webhooks reuse the rung the facts declare; a firm's routing is declared field by field.
    expect(doc.webhooks['reminder.ack_due'].post.requestBody.content['application/json'].schema.properties.data.allOf).toEqual([{ $ref: '#/components/schemas/ReminderData' }]);
    expect(Object.keys(doc.components.schemas.FirmRouting.properties)).toEqual(['participationWindows', 'memberOptIns', 'remittanceDesignation']);
  });

  it('holds a fact to its kind\'s schema, as the reply check does (Ajv 2020, the components beside it)', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    for (const component of COMPONENTS) ajv.addSchema(component);
    const valid = ajv.getSchema('JournalEntry')!;
    const base = { seq: 9, at: '2026-11-26T09:00:00.000Z', by: 'gate', note: 'n' };
    expect(valid({ ...base, kind: 'gig.posted', data: { reservedAct: 'sign', gigId: 'gig_1' } })).toBe(true);
    // A field the kind does not declare, a field it requires left out, a value of the wrong type, a kind no door answers, another kind's data: each refused.
    expect(valid({ ...base, kind: 'gig.posted', data: { reservedAct: 'sign', gigId: 'gig_1', secret: 'x' } })).toBe(false);
    expect(valid({ ...base, kind: 'gig.posted', data: { reservedAct: 'sign' } })).toBe(false);
    expect(valid({ ...base, kind: 'gig.posted', data: { reservedAct: 'notarize', gigId: 'gig_1' } })).toBe(false);
    expect(valid({ ...base, kind: 'key.issued', data: { keyId: 'key_1', keyHash: 'h' } })).toBe(false);
    expect(valid({ ...base, kind: 'lifecycle', data: { reservedAct: 'sign', gigId: 'gig_1' } })).toBe(false);
    expect(valid({ ...base, kind: 'gig.posted', data: { reservedAct: 'sign', gigId: 'gig_1' }, extra: true })).toBe(false);
    const tail = ajv.getSchema('TailEntry')!;
    const rung = { rung: 'ack_due', atDaysRemaining: 5, occurrence: 1, obligation: 'nonprovisional_conversion', alarm: 'vacant' };
    expect(tail({ seq: 3, at: base.at, subject: 'as_1', summary: 's', kind: 'reminder.ack_due', data: rung })).toBe(true);
    expect(tail({ seq: 3, at: base.at, subject: 'as_1', summary: 's', kind: 'reminder.ack_due', data: { ...rung, assetId: 'as_1' } })).toBe(false);
  });
});

describe('the serializer', () => {
  // The service's own serializers, as Fastify asks for them (a journal and a tail page of entries).
  const external = Object.fromEntries(COMPONENTS.map((c) => [c.$id, c]));
  const serializerOf = (schema: object) => buildSerializer(external as never, {})({ schema } as never) as (value: unknown) => string;
  const write = serializerOf({ type: 'array', items: { $ref: 'JournalEntry#' } });
  const writeTail = serializerOf({ type: 'array', items: { $ref: 'TailEntry#' } });
  const at = '2026-11-26T09:00:00.000Z';

  it('writes every fact of a journal as it is (the same JSON), each by its kind\'s schema', async () => {
    const ws = await workspace(app);
    const { matter } = (await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', client: { name: FIXTURE.fulfillingClient }, adverseParties: ['Someone'] })).body;
    for (let i = 0; i < 5; i++) await call(app, 'POST', `${ws}/matters/${matter.id}/advance`, {});
    const journal = (await call(app, 'GET', `${ws}/matters/${matter.id}`)).body.journal;
    expect(new Set(journal.map((e: { kind: string }) => e.kind))).toEqual(new Set(['matter.opened', 'stage', 'gig.posted', 'lifecycle']));
    expect(JSON.parse(write(journal))).toEqual(journal);
    const tail = (await call(app, 'GET', `${ws}/events?limit=100`)).body.results;
    expect(JSON.parse(writeTail(tail))).toEqual(tail);
  });

  it('never writes a field the fact\'s kind does not declare, nor the data of a kind no door answers', () => {
    const posted = { seq: 1, at, kind: 'gig.posted', by: 'gate', note: 'n', data: { reservedAct: 'sign', gigId: 'gig_1', secret: 'never sent' }, undeclared: 'never sent' };
    const rung = { seq: 2, at, kind: 'reminder.notice', by: 'gate', note: 'n', data: { rung: 'notice', atDaysRemaining: 30, occurrence: 1, obligation: 'o', alarm: 'vacant', secret: 'never sent' } };
    const key = { seq: 3, at, kind: 'key.issued', by: 'gate', note: 'n', data: { keyId: 'key_1', keyHash: 'never sent' } };
    // A member of a type its schema does not take is left out too: an object where a string or an Attestation belongs.
    const stage = { seq: 4, at, kind: 'stage', by: 'signer', note: 'n', data: { gigId: 'gig_1', receipt: { secret: 'never sent' }, attestation: 'never sent' } };
    const written = write([posted, rung, key, stage]);
    expect(written).not.toContain('never sent');
    expect(JSON.parse(written)).toEqual([
      { seq: 1, at, kind: 'gig.posted', by: 'gate', note: 'n', data: { reservedAct: 'sign', gigId: 'gig_1' } },
      { seq: 2, at, kind: 'reminder.notice', by: 'gate', note: 'n', data: { rung: 'notice', atDaysRemaining: 30, occurrence: 1, obligation: 'o', alarm: 'vacant' } },
      { seq: 3, at, kind: 'key.issued', by: 'gate', note: 'n', data: {} },
      { seq: 4, at, kind: 'stage', by: 'signer', note: 'n', data: { gigId: 'gig_1' } },
    ]);
  });

  it('dispatches on kind: each answered kind is written whole by its own branch, every optional field included', () => {
    // A fact of each kind with every field its schema declares: a branch of another kind would drop some, or refuse a required one.
    for (const kind of Object.keys(EVENT_KINDS)) {
      const data = sample(doc.components.schemas[`Fact.${kind}`].properties.data, doc.components.schemas);
      const entry = { seq: 1, at, kind, by: 'gate', note: 'n', data };
      expect(Object.keys(data as object).length, kind).toBeGreaterThan(0);
      expect(JSON.parse(write([{ ...entry, data: { ...(data as object), undeclared: 'never sent' } }])), kind).toEqual([entry]);
    }
  });
});

/** A value of a schema as the document writes it, with every property it declares (optional ones too): the first of an enum, the first branch of a union. */
function sample(schema: any, schemas: Record<string, any>): unknown {
  if (schema.$ref) return sample(schemas[schema.$ref.replace('#/components/schemas/', '')], schemas);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((part: any) => sample(part, schemas)), schema.properties ? sample({ type: 'object', properties: schema.properties }, schemas) : {});
  if (schema.anyOf ?? schema.oneOf) return sample((schema.anyOf ?? schema.oneOf)[0], schemas);
  if (schema.enum) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object') return Object.fromEntries(Object.entries<any>(schema.properties ?? {}).map(([name, member]) => [name, sample(member, schemas)]));
  if (type === 'array') return [sample(schema.items, schemas)];
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  if (type === 'string') return schema.pattern === '^[0-9a-f]{64}$' ? 'a'.repeat(64) : 'text';
  throw new Error(`no sample for ${JSON.stringify(schema)}`);
}
