/**
 * The reply serializers write a union told apart by one field's constant by
 * testing that field (src/http/serializers.ts `dispatchUnions`), never by
 * validating the value against each branch: the same bytes, nothing
 * undeclared leaves, and a value no branch names is refused as before.
 */
import fastJson, { type Schema } from 'fast-json-stringify';
import { describe, expect, it } from 'vitest';
import { COMPONENTS } from '../src/schemas/components.ts';
import { EventDoors, MatterDoors } from '../src/http/schemas/responses.ts';
import { buildSerializer, dispatchUnions, forSerializer } from '../src/http/serializers.ts';

const external = Object.fromEntries(COMPONENTS.map((c) => [c.$id, c])) as unknown as Record<string, Schema>;
const writerOf = (schema: unknown) => fastJson(dispatchUnions(schema as Record<string, unknown>, external as never) as Schema, { schema: forSerializer(external as never) });

describe('a union told apart by a constant (an OK page or a typed EMPTY)', () => {
  const listed = MatterDoors.assets.response[200];
  const write = writerOf(listed);
  const ok = { type: 'OK', results: [{ id: 'as_1', kind: 'patent_application', title: 'Self-folding map', lineage: ['mt_1'] }], nextAfter: null };
  const empty = { type: 'EMPTY', results: [], message: 'no Asset here yet' };

  it('is compiled as a dispatch on that field, the schemas it was given left as they were', () => {
    const before = JSON.stringify(listed);
    const dispatched = dispatchUnions(listed as never, external as never);
    expect(dispatched.anyOf).toBeUndefined();
    expect(dispatched.if).toEqual({ type: 'object', required: ['type'], properties: { type: { enum: ['OK'] } } });
    expect(JSON.stringify(listed)).toBe(before);
  });

  it('writes each branch as JSON.stringify would, and drops what its branch does not declare', () => {
    expect(write(ok)).toBe(JSON.stringify(ok));
    expect(write(empty)).toBe(JSON.stringify(empty));
    expect(write({ ...ok, results: [{ ...ok.results[0], secret: 'never sent' }] })).toBe(JSON.stringify(ok));
  });

  it('refuses a value no branch names, as the union did', () => {
    expect(() => write({ ...empty, type: 'BLOCKED' })).toThrow();
  });

  it('writes a tail page of facts and its typed EMPTY alike', () => {
    const tail = buildSerializer(external as never, {})({ schema: EventDoors.tail.response[200] } as never) as (value: unknown) => string;
    const base = { appendOnly: true, feed: 'timeline', after: 0, latestSeq: 2 };
    const page = { type: 'OK', ...base, results: [{ seq: 1, at: 'now', kind: 'gig.posted', subject: 'mt_1', summary: 's', by: 'gate', data: { reservedAct: 'sign', gigId: 'gig_1' } }], nextAfter: 1 };
    expect(JSON.parse(tail(page))).toEqual(page);
    expect(tail({ ...page, results: [{ ...page.results[0], data: { ...page.results[0].data, secret: 'never sent' } }] })).not.toContain('never sent');
    const none = { type: 'EMPTY', ...base, results: [], nextAfter: 2, message: 'nothing after seq 2' };
    expect(JSON.parse(tail(none))).toEqual(none);
  });
});

describe('a record or the item in its place (a list\'s UnreadableItem), told apart by `unreadable`', () => {
  const item = (MatterDoors.assets.response[200] as { anyOf: Array<{ properties: { results: { items: unknown } } }> }).anyOf[0].properties.results.items;
  const write = writerOf(item);
  const asset = { id: 'as_1', kind: 'patent_application', title: 'Self-folding map', lineage: ['mt_1'] };
  const unreadable = { id: 'as_2', unreadable: true, code: 'STREAM_UNREADABLE', error: 'Asset as_2 cannot be read', fix: 'GET /assets/as_2' };

  it('is compiled as a dispatch on that field: the item when it holds it, the record when it does not', () => {
    const dispatched = dispatchUnions(item as never, external as never);
    expect(dispatched.oneOf).toBeUndefined();
    expect(dispatched.if).toEqual({ type: 'object', required: ['unreadable'], properties: { unreadable: { enum: [true] } } });
    expect(dispatched.else.if).toEqual({ type: 'object', not: { required: ['unreadable'] } });
  });

  it('writes each as JSON.stringify would, drops what its branch does not declare, and refuses an `unreadable` no branch holds', () => {
    expect(write(asset)).toBe(JSON.stringify(asset));
    expect(write(unreadable)).toBe(JSON.stringify(unreadable));
    expect(write({ ...unreadable, body: 'never sent' })).toBe(JSON.stringify(unreadable));
    expect(() => write({ ...asset, unreadable: false })).toThrow();
  });
});
