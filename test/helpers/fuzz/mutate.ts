/**
 * What the fuzzer does to a request that is valid by the contract: wrong
 * types, missing and extra fields, extreme numbers, huge and hostile
 * strings, deep nesting, prototype keys, malformed JSON, bad headers and
 * content types, unknown, cross-grain and very long path ids, broken
 * queries and methods. Each mutator names itself (the request carries the
 * names) and says whether the result is something the service must refuse
 * whatever else holds (`mustRefuse`): malformed JSON, a body over the limit,
 * a required field gone, an unknown field where the schema is closed, a
 * malformed key, Idempotency-Key, If-Match or provenance header, an unknown
 * grain or record id.
 */
import type { Operation, Schema } from './contract.ts';
import type { Grain, World } from './fixtures.ts';
import type { Rng } from './rng.ts';
import type { ValueGen } from './values.ts';

/** A token written into the JSON text as is (numbers JSON.stringify cannot write, pre-nested text). */
export class Raw {
  constructor(readonly text: string) {}
}

/** JSON text of `v`, writing Raw tokens verbatim and own `__proto__` keys as keys. */
export function toJson(v: unknown): string {
  if (v instanceof Raw) return v.text;
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(toJson).join(',')}]`;
  return `{${Object.keys(v)
    .map((k) => `${JSON.stringify(k)}:${toJson((v as Record<string, unknown>)[k])}`)
    .join(',')}}`;
}

/** Sets an own, enumerable property, `__proto__` included. */
export function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

export interface Draft {
  op: Operation;
  grain: Grain;
  method: string;
  /** Path segments, each already encoded. */
  segments: string[];
  /** Path parameter -> its segment's index. */
  params: Map<string, number>;
  /** Query pairs, already encoded. */
  query: Array<[string, string]>;
  headers: Record<string, string | string[]>;
  /** The body's JSON value, while it is one (undefined: no body). */
  value?: unknown;
  /** The body as sent, once serialized. */
  text?: Buffer;
  /** The Content-Type to send (undefined: none). */
  media?: string;
  chunked: boolean;
  mutations: string[];
  offRoute: boolean;
  /** Sign the final body as the supply network (the top-level callback). */
  sign: boolean;
  stream: boolean;
  mustRefuse: boolean;
  /** The schema of the body, when it has one. */
  schema?: Schema;
  /** Path parameters a mutation already rewrote (another one leaves them be). */
  touched: Set<string>;
  /** Keys an `extra-field` or `proto-keys` mutation added (a `missing-field` leaves them be). */
  added: Set<string>;
  /** A text mutation meant to break the JSON (whether it did is checked on the final text). */
  syntaxBroken?: boolean;
  /** A `proto-keys` mutation poisoned the body (whether the poison is still there is checked on the final text). */
  poisoned?: boolean;
}

/** `text` as the service parses JSON (secure-json-parse, which drops a leading BOM; a repeated key's last value wins), or undefined when it is not JSON. */
export function jsonOf(text: Buffer): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text.toString('utf8').replace(/^\ufeff/, '')) };
  } catch {
    return undefined;
  }
}

/** Does a parsed body hold what secure-json-parse refuses anywhere: a `__proto__` key, or a `constructor` key whose value has its own `prototype`? */
export function holdsPoison(value: unknown): boolean {
  // A walk with its own stack, as secure-json-parse's: a deep-nesting mutation nests far past the call stack.
  const pending = [value];
  while (pending.length) {
    const node = pending.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Object.hasOwn(node, '__proto__')) return true;
    const ctor = Object.hasOwn(node, 'constructor') ? (node as { constructor: unknown }).constructor : undefined;
    if (ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) return true;
    for (const member of Object.values(node)) pending.push(member);
  }
  return false;
}

export interface Ctx {
  rng: Rng;
  values: ValueGen;
  world: World;
  /** Idempotency-Keys sent lately (for reuse). */
  recentKeys: string[];
  bodyLimit: number;
}

export interface Mutator {
  name: string;
  phase: 'value' | 'text' | 'header' | 'path';
  weight: number;
  applies(d: Draft): boolean;
  apply(d: Draft, c: Ctx): void;
}

type Node = { parent: Record<string, unknown> | unknown[] | null; key: string | number | null; value: unknown; depth: number };

/** Every node of a JSON value (the root first), at most `cap`. */
function nodesOf(root: unknown, cap = 200): Node[] {
  const out: Node[] = [];
  const walk = (parent: Node['parent'], key: Node['key'], value: unknown, depth: number) => {
    if (out.length >= cap) return;
    out.push({ parent, key, value, depth });
    if (value instanceof Raw || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) value.forEach((v, i) => walk(value, i, v, depth + 1));
    else for (const k of Object.keys(value)) walk(value as Record<string, unknown>, k, (value as Record<string, unknown>)[k], depth + 1);
  };
  walk(null, null, root, 0);
  return out;
}

/** Replaces a node (the root replaces the whole body). */
function replace(d: Draft, n: Node, v: unknown): void {
  if (n.parent === null) d.value = v;
  else if (Array.isArray(n.parent)) n.parent[n.key as number] = v;
  else setOwn(n.parent, n.key as string, v);
}

/** A node to hit: mostly a leaf or field below the root, sometimes the root itself. */
function pickNode(d: Draft, c: Ctx, want?: (n: Node) => boolean): Node {
  const all = nodesOf(d.value);
  const below = all.filter((n) => n.depth > 0);
  const wanted = want ? below.filter(want) : [];
  if (wanted.length && c.rng.chance(0.8)) return c.rng.pick(wanted);
  if (below.length && c.rng.chance(0.9)) return c.rng.pick(below);
  return all[0];
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Raw);
const rootClosed = (d: Draft) => d.schema?.type === 'object' && d.schema.additionalProperties === false;

/** A path parameter no other mutation rewrote yet, marked as rewritten now; undefined when none is left. */
function untouched(d: Draft, c: Ctx, only?: (name: string) => boolean): [string, number] | undefined {
  const free = [...d.params].filter(([name]) => !d.touched.has(name) && (!only || only(name)));
  if (!free.length) return undefined;
  const chosen = c.rng.pick(free);
  d.touched.add(chosen[0]);
  d.mutations[d.mutations.length - 1] += `:${chosen[0]}`;
  return chosen;
}
const anyUntouched = (d: Draft) => [...d.params.keys()].some((k) => !d.touched.has(k));

const NASTY = [
  '\ud800',
  '\udfff',
  'a\udc00\ud800b',
  '\u202eRTL override\u202c',
  '\u0000',
  'nul\u0000inside',
  '\ufeffbom',
  '\uffff\ufffe',
  '👩‍👩‍👧‍👦🏳️‍🌈',
  'a' + '\u0301'.repeat(200),
  '\u200b\u200c\u200d\u2060',
  '\r\n\t\u000b\u000c',
  "'; DROP TABLE events; --",
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '%s%s%n%x',
  '${process.exit(1)}',
  '{{constructor.constructor("return process")()}}',
  '__proto__',
  'constructor',
  '\\u0000',
  ' ',
  '',
  'true',
  '0',
  'null',
  'undefined',
  'NaN',
];

const EXTREME_NUMBERS = [
  new Raw('1e308'),
  new Raw('-1e308'),
  new Raw('1e309'),
  new Raw('-1e400'),
  new Raw('-0'),
  new Raw('-0.0'),
  new Raw('5e-324'),
  new Raw('1e-400'),
  new Raw('123456789012345678901234567890'),
  new Raw('9007199254740993'),
  new Raw('-9007199254740993'),
  new Raw('1' + '0'.repeat(400)),
  new Raw('0.' + '1'.repeat(500)),
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 32,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  -1,
  0,
  0.5,
  'NaN',
  'Infinity',
  '-Infinity',
  '1e308',
  '-0',
  '0x10',
  '1_000',
  ' 5',
  '5 ',
  '',
];

const WRONG_TYPES: unknown[] = ['5', 'true', '', 5, 0, -1, 1.5, true, false, null, [], [1], {}, { a: 1 }, ['x']];

const EXTRA_KEYS = ['fuzz', '__proto__', 'constructor', 'prototype', '$ref', '', ' ', 'toString', 'hasOwnProperty', 'valueOf', '\u0000', '🗝️', 'x'.repeat(1000), 'id', 'version', 'seq', 'grain', 'status', 'admin', 'isAdmin'];

const valueMutators: Mutator[] = [
  {
    name: 'wrong-type',
    phase: 'value',
    weight: 10,
    applies: (d) => d.value !== undefined,
    apply(d, c) {
      const n = pickNode(d, c, (x) => x.value === null || typeof x.value !== 'object');
      const was = n.value === null ? 'null' : Array.isArray(n.value) ? 'array' : typeof n.value;
      const alternatives = WRONG_TYPES.filter((w) => (w === null ? 'null' : Array.isArray(w) ? 'array' : typeof w) !== was);
      const v = structuredClone(c.rng.pick(alternatives));
      replace(d, n, v);
      // A body that is no object where the door wants one; JSON null reads as no body at all, which a door with an optional body takes.
      // At the root the whole value is replaced (as not-an-object does): what an earlier mutator made refusable is gone with it,
      // so null, or an object (which may be one the door takes: `{}` where every field is optional), leaves nothing that must be refused.
      if (n.depth === 0) d.mustRefuse = d.schema?.type === 'object' && v !== null && !isObject(v);
    },
  },
  {
    name: 'missing-field',
    phase: 'value',
    weight: 8,
    applies: (d) => nodesOf(d.value, 50).some((n) => isObject(n.value) && Object.keys(n.value).length > 0),
    apply(d, c) {
      const objects = nodesOf(d.value).filter((n) => isObject(n.value) && Object.keys(n.value as object).length > 0);
      const root = d.value;
      const required: string[] = isObject(root) && d.schema?.required ? d.schema.required.filter((k: string) => k in root && !d.added.has(k)) : [];
      if (required.length && c.rng.chance(0.6)) {
        delete (root as Record<string, unknown>)[c.rng.pick(required)];
        d.mustRefuse = true;
        return;
      }
      const o = c.rng.pick(objects).value as Record<string, unknown>;
      const keys = Object.keys(o).filter((k) => !d.added.has(k));
      if (keys.length) delete o[c.rng.pick(keys)];
    },
  },
  {
    name: 'extra-field',
    phase: 'value',
    weight: 8,
    applies: (d) => d.value !== undefined,
    apply(d, c) {
      const objects = nodesOf(d.value).filter((n) => isObject(n.value));
      const key = c.rng.pick(EXTRA_KEYS);
      const value = c.rng.pick<unknown>(['x', 1, true, null, { polluted: true }, [1, 2]]);
      if (!objects.length) {
        d.value = { [key || 'fuzz']: value };
        return;
      }
      const target = c.rng.chance(0.6) ? objects[0] : c.rng.pick(objects);
      setOwn(target.value as Record<string, unknown>, key, structuredClone(value));
      d.added.add(key);
      if (target.depth === 0 && (rootClosed(d) || key === '__proto__' || key === 'constructor')) d.mustRefuse = true;
    },
  },
  {
    name: 'proto-keys',
    phase: 'value',
    weight: 6,
    applies: (d) => d.value !== undefined,
    apply(d, c) {
      const objects = nodesOf(d.value).filter((n) => isObject(n.value));
      const target = objects.length ? (c.rng.chance(0.6) ? objects[0] : c.rng.pick(objects)).value as Record<string, unknown> : undefined;
      const poison = c.rng.pick([
        ['__proto__', { polluted: true, isAdmin: true, status: 'fulfilled' }],
        ['constructor', { prototype: { polluted: true } }],
        ['prototype', { polluted: true }],
        ['__proto__', null],
      ] as Array<[string, unknown]>);
      d.added.add(poison[0]);
      if (target) setOwn(target, poison[0], structuredClone(poison[1]));
      else {
        const o = {};
        setOwn(o, poison[0], poison[1]);
        d.value = o;
      }
      // secure-json-parse refuses __proto__ and constructor.prototype anywhere in the body: as long as no later mutation overwrites or shadows it (the generator's `finalize` looks).
      if (poison[0] === '__proto__' || (poison[0] === 'constructor' && poison[1] !== null)) d.poisoned = true;
    },
  },
  {
    name: 'extreme-number',
    phase: 'value',
    weight: 8,
    applies: (d) => d.value !== undefined,
    apply(d, c) {
      const n = pickNode(d, c, (x) => typeof x.value === 'number');
      replace(d, n, c.rng.pick(EXTREME_NUMBERS));
    },
  },
  {
    name: 'huge-string',
    phase: 'value',
    weight: 4,
    applies: (d) => d.value !== undefined,
    apply(d, c) {
      const n = pickNode(d, c, (x) => typeof x.value === 'string');
      const length = c.rng.pick([300, 5_000, 70_000, c.bodyLimit - 200, c.bodyLimit + 1000]);
      const unit = c.rng.pick(['x', 'é', '🗺', 'ab\u0000', '\\', '"']);
      replace(d, n, unit.repeat(Math.ceil(length / unit.length)).slice(0, length));
    },
  },
  {
    name: 'hostile-string',
    phase: 'value',
    weight: 10,
    applies: (d) => d.value !== undefined,
    apply(d, c) {
      const n = pickNode(d, c, (x) => typeof x.value === 'string');
      replace(d, n, c.rng.chance(0.7) ? c.rng.pick(NASTY) : `${c.rng.pick(NASTY)}${typeof n.value === 'string' ? n.value : 'x'}${c.rng.pick(NASTY)}`);
    },
  },
  {
    name: 'deep-nesting',
    phase: 'value',
    weight: 4,
    applies: (d) => d.value !== undefined,
    apply(d, c) {
      const n = pickNode(d, c);
      const depth = c.rng.pick([5, 16, 31, 33, 64, 200, 5_000, 20_000]);
      replace(d, n, new Raw(c.rng.chance(0.5) ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));
    },
  },
  {
    name: 'big-array',
    phase: 'value',
    weight: 2,
    applies: (d) => d.value !== undefined,
    apply(d, c) {
      const n = pickNode(d, c, (x) => Array.isArray(x.value));
      // Many small items (an item another mutation made huge would make the body gigabytes).
      const first = Array.isArray(n.value) && n.value.length ? toJson(n.value[0]) : '"x"';
      const item = first.length <= 64 ? first : '1';
      replace(d, n, new Raw(`[${Array.from({ length: c.rng.pick([101, 1_000, 20_000]) }, () => item).join(',')}]`));
    },
  },
  {
    name: 'not-an-object',
    phase: 'value',
    weight: 3,
    applies: (d) => d.value !== undefined || d.op.body !== undefined,
    apply(d, c) {
      const before = d.value;
      d.value = c.rng.pick<unknown>([[], 'advance', 42, null, true, [before ?? {}], new Raw('""')]);
      // The whole value is replaced: what the value mutators before this one made refusable (value mutators run first) is gone with it.
      d.mustRefuse = d.schema?.type === 'object' && d.value !== null;
    },
  },
];

const textMutators: Mutator[] = [
  {
    name: 'truncated-json',
    phase: 'text',
    weight: 6,
    applies: (d) => !!d.text && d.text.length > 1 && isJsonMedia(d.media),
    apply(d, c) {
      d.text = d.text!.subarray(0, 1 + c.rng.int(d.text!.length - 1));
      d.syntaxBroken = true;
    },
  },
  {
    name: 'trailing-comma',
    phase: 'text',
    weight: 3,
    applies: (d) => !!d.text && /[}\]]\s*$/.test(d.text.toString('latin1')) && isJsonMedia(d.media),
    apply(d) {
      const s = d.text!.toString('utf8');
      const i = Math.max(s.lastIndexOf('}'), s.lastIndexOf(']'));
      d.text = Buffer.from(`${s.slice(0, i)},${s.slice(i)}`);
      d.syntaxBroken = true;
    },
  },
  {
    name: 'bom',
    phase: 'text',
    weight: 2,
    applies: (d) => !!d.text,
    apply(d) {
      d.text = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), d.text!]);
    },
  },
  {
    name: 'duplicate-key',
    phase: 'text',
    weight: 3,
    applies: (d) => !!d.text && d.text[0] === 0x7b && d.text.length > 2,
    apply(d, c) {
      const keys = isObject(d.value) ? Object.keys(d.value) : [];
      const key = keys.length ? c.rng.pick(keys) : 'fuzz';
      const dup = `${JSON.stringify(key)}:${toJson(c.rng.pick(WRONG_TYPES))},`;
      // Before (the last one wins: the valid value) or after (the junk wins). After only on a body nothing
      // made refusable yet: the junk replaces the key's whole value, and with it whatever an earlier mutator
      // put there (a wrong type or an unknown field deep under `offers`, shadowed by `"offers":[]`, which the door takes).
      const s = d.text!.toString('utf8');
      const junkWins = c.rng.chance(0.5) && !d.mustRefuse;
      d.text = Buffer.from(junkWins ? `${s.slice(0, -1)}${s.length > 2 ? ',' : ''}${dup.slice(0, -1)}}` : `{${dup}${s.slice(1)}`);
    },
  },
  {
    name: 'not-json',
    phase: 'text',
    weight: 4,
    applies: (d) => isJsonMedia(d.media) && d.op.body !== undefined,
    apply(d, c) {
      const s = d.text?.toString('utf8') ?? '{}';
      d.text = Buffer.from(
        c.rng.pick([
          s.replace(/"/g, "'"),
          s.replace(/"([A-Za-z_]\w*)":/g, '$1:'),
          `/* comment */${s}`,
          `${s} // trailing`,
          `${s}garbage`,
          `${s}${s}`,
          `{"x": NaN}`,
          `{"x": Infinity}`,
          `{"x": undefined}`,
          `{"x": 0x10}`,
          `{"x": .5}`,
          `{"x": 01}`,
          `{"x": "unterminated}`,
          `{"x": "bad escape \\q"}`,
          `{"x": "\\ud800\\u"}`,
          `{,}`,
          `[1,,2]`,
          `{"a" 1}`,
          `nul`,
          `)]}'\n${s}`,
        ]),
      );
      d.syntaxBroken = true;
    },
  },
  {
    name: 'invalid-utf8',
    phase: 'text',
    weight: 3,
    applies: (d) => !!d.text && d.text.includes(0x22),
    apply(d, c) {
      const bad = c.rng.pick([[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82], [0x80]]);
      const at = d.text!.indexOf(0x22) + 1;
      d.text = Buffer.concat([d.text!.subarray(0, at), Buffer.from(bad), d.text!.subarray(at)]);
    },
  },
  {
    name: 'empty-body',
    phase: 'text',
    weight: 3,
    applies: (d) => d.op.body !== undefined || d.method !== 'GET',
    apply(d, c) {
      d.text = Buffer.from(c.rng.pick(['', ' ', '\n\n', '\t']));
      if (!d.media) d.media = 'application/json';
      if (d.op.body?.required && isJsonMedia(d.media) && d.media === 'application/json') d.mustRefuse = true;
    },
  },
  {
    name: 'binary-body',
    phase: 'text',
    weight: 2,
    applies: () => true,
    apply(d, c) {
      const n = c.rng.pick([1, 16, 1024, 100_000]);
      const bytes = Buffer.alloc(n);
      for (let i = 0; i < n; i++) bytes[i] = c.rng.int(256);
      d.text = bytes;
      if (!d.media && c.rng.chance(0.7)) d.media = c.rng.pick(['application/json', 'application/octet-stream']);
    },
  },
];

const isJsonMedia = (m?: string) => !!m && /json/i.test(m);

const CONTENT_TYPES = [
  'text/plain',
  'text/plain; charset=utf-8',
  'application/xml',
  'application/octet-stream',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzzboundary',
  'multipart/form-data',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset=',
  'application/json;;;',
  'APPLICATION/JSON',
  'Application/Json; Charset=UTF-8',
  'application/json, text/plain',
  'application/jsonp',
  'application/json-seq',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'application/ld+json',
  '*/*',
  'json',
  '',
  ' ',
  ';',
  `application/json; ${'a=b;'.repeat(1500)}`,
  'application/json\u00e9',
];

/** A header value Node will write (latin1: a UTF-8 string's bytes, read as latin1). */
const latin1 = (s: string) => Buffer.from(s, 'utf8').toString('latin1');

const headerMutators: Mutator[] = [
  {
    name: 'content-type',
    phase: 'header',
    weight: 8,
    applies: (d) => d.method !== 'GET' && d.method !== 'HEAD',
    apply(d, c) {
      const ct = c.rng.pick(CONTENT_TYPES);
      d.media = ct;
      if (ct.startsWith('multipart/form-data; boundary=')) {
        d.text = Buffer.from(`--fuzzboundary\r\nContent-Disposition: form-data; name="body"\r\n\r\n${d.text?.toString('utf8') ?? '{}'}\r\n--fuzzboundary--\r\n`);
      } else if (ct.includes('utf-16')) {
        d.text = Buffer.from(d.text?.toString('utf8') ?? '{}', 'utf16le');
      } else if (!d.text) d.text = Buffer.from('{}');
      const jsonish = /^application\/json(\s*;|$)/i.test(ct.trim());
      const form = /^application\/x-www-form-urlencoded/i.test(ct) && d.op.template === '/keys';
      if (d.op.body?.required && !jsonish && !form && ct.trim() !== '') d.mustRefuse = true;
    },
  },
  {
    name: 'no-content-type',
    phase: 'header',
    weight: 4,
    applies: (d) => d.method !== 'GET' && d.method !== 'HEAD',
    apply(d) {
      d.media = undefined;
      if (!d.text) d.text = Buffer.from('{}');
    },
  },
  {
    name: 'chunked',
    phase: 'header',
    weight: 3,
    applies: (d) => !!d.text,
    apply(d) {
      d.chunked = true;
    },
  },
  {
    name: 'content-encoding',
    phase: 'header',
    weight: 1,
    applies: (d) => !!d.text,
    apply(d, c) {
      d.headers['content-encoding'] = c.rng.pick(['gzip', 'br', 'deflate', 'identity', 'fuzz']);
    },
  },
  {
    name: 'bad-idempotency-key',
    phase: 'header',
    weight: 6,
    applies: (d) => (d.method === 'POST' || d.method === 'PUT') && !d.touched.has('header:idempotency-key'),
    apply(d, c) {
      d.touched.add('header:idempotency-key');
      const bad = c.rng.pick<string | string[]>(['', ' ', 'x'.repeat(256), 'k'.repeat(4000), latin1('ключ'), latin1('🔑'), '\u00e9t\u00e9', 'a\tb', ['same-key', 'other-key']]);
      d.headers['idempotency-key'] = bad;
      // Whitespace only is trimmed to nothing by the HTTP parser, and an empty key is malformed.
      d.mustRefuse = true;
    },
  },
  {
    name: 'reused-idempotency-key',
    phase: 'header',
    weight: 3,
    applies: (d) => (d.method === 'POST' || d.method === 'PUT') && !!(d.grain.kind !== 'top' || d.headers.authorization) && !d.touched.has('header:idempotency-key'),
    apply(d, c) {
      d.touched.add('header:idempotency-key');
      d.headers['idempotency-key'] = c.recentKeys.length ? c.rng.pick(c.recentKeys) : 'fuzz-reused';
    },
  },
  {
    name: 'bad-authorization',
    phase: 'header',
    weight: 8,
    applies: () => true,
    apply(d, c) {
      const valid = d.grain.auth.authorization ?? c.world.grains.find((g) => g.kind === 'top')!.auth.authorization;
      const key = valid.slice('Bearer '.length);
      const choice = c.rng.pick<[string | string[], boolean]>([
        ['Bearer', true],
        ['Bearer ', true],
        ['Bearer lwk_', true],
        [`Bearer lwk_${'A'.repeat(43)}`, true],
        [`Bearer ${key.slice(0, -1)}`, true],
        [`Bearer ${key}x`, true],
        [`Bearer ${'A'.repeat(8000)}`, true],
        ['Basic dXNlcjpwYXNz', true],
        ['Token abc', true],
        [`Bearer ${key} extra`, true],
        [latin1(`Bearer lwk_ключ`), true],
        [`bearer ${key}`, false],
        [`Bearer  ${key}`, false],
        [[valid, 'Bearer junk'], false],
        [c.world.grains.find((g) => g.kind === 'top' && g.auth.authorization !== valid)!.auth.authorization, false],
      ]);
      d.headers.authorization = choice[0];
      if (choice[1]) d.mustRefuse = true;
    },
  },
  {
    name: 'bad-if-match',
    phase: 'header',
    weight: 3,
    // One If-Match mutation a request: a second would overwrite the first's header, and what it made refusable with it.
    applies: (d) => d.op.params.some((p) => p.name === 'if-match') && !d.mutations.some((m) => m.endsWith('if-match')),
    apply(d, c) {
      d.headers['if-match'] = c.rng.pick(['W/"1"', '"abc"', '1', '"9999999999999999999"', '*, "1"', '""', 'junk', latin1('"१"')]);
      d.mustRefuse = true;
    },
  },
  {
    name: 'stale-if-match',
    phase: 'header',
    weight: 2,
    applies: (d) => d.op.params.some((p) => p.name === 'if-match') && !d.mutations.some((m) => m.endsWith('if-match')),
    apply(d, c) {
      d.headers['if-match'] = `"${c.rng.pick([0, 1, 2, 3, 5, 8, 13, 999999999999999])}"`;
    },
  },
  {
    name: 'bad-provenance',
    phase: 'header',
    weight: 3,
    applies: () => true,
    apply(d, c) {
      if (c.rng.chance(0.5)) d.headers['x-actor'] = c.rng.pick(['', ' ', 'a'.repeat(201)]);
      else d.headers['x-mandate'] = c.rng.pick(['', '  ', 'm'.repeat(4001)]);
      d.mustRefuse = true;
    },
  },
  {
    name: 'odd-provenance',
    phase: 'header',
    weight: 1,
    applies: (d) => d.headers['x-actor'] === undefined,
    apply(d, c) {
      d.headers['x-actor'] = latin1(c.rng.pick(['Zoë', '李', '\u202eevil', '👩‍⚖️']));
    },
  },
  {
    name: 'huge-header',
    phase: 'header',
    weight: 2,
    applies: () => true,
    apply(d, c) {
      if (c.rng.chance(0.5)) d.headers['x-fuzz'] = 'h'.repeat(c.rng.pick([1000, 8000, 12000]));
      else for (let i = 0; i < 90; i++) d.headers[`x-fuzz-${i}`] = String(i);
    },
  },
  {
    name: 'bad-webhook-signature',
    phase: 'header',
    weight: 8,
    applies: (d) => d.op.params.some((p) => p.name === 'webhook-signature'),
    apply(d, c) {
      d.sign = c.rng.chance(0.3);
      const which = c.rng.pick(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
      const junk = c.rng.pick<string | undefined>([undefined, '', 'abc', '0', '99999999999', '-1', 'v1,AAAA', 'v2,abc', 'v1,', `v1,${'A'.repeat(5000)}`, String(Math.floor(Date.now() / 1000) - 86_400)]);
      d.mutations.push(`${which}=${junk === undefined ? '(missing)' : junk.slice(0, 20)}`);
      if (d.sign) {
        // Signed, then one header spoiled after signing (see finalize).
        d.headers[`x-spoil-${which}`] = junk ?? '\u0000missing';
      } else if (junk !== undefined) {
        d.headers['webhook-id'] = 'msg_fuzz';
        d.headers['webhook-timestamp'] = String(Math.floor(Date.now() / 1000));
        d.headers['webhook-signature'] = 'v1,' + Buffer.alloc(32, 7).toString('base64');
        d.headers[which] = junk;
      }
      d.mustRefuse = true;
    },
  },
  {
    name: 'accept',
    phase: 'header',
    weight: 2,
    applies: () => true,
    apply(d, c) {
      d.headers.accept = c.rng.pick(['text/event-stream', 'application/xml', '*/*;q=0', 'text/html', 'application/json;q=0, text/event-stream;q=1', 'x'.repeat(3000)]);
      if (d.op.template.endsWith('/events/stream')) d.stream = true;
    },
  },
  {
    name: 'odd-headers',
    phase: 'header',
    weight: 2,
    applies: () => true,
    apply(d, c) {
      const [k, v] = c.rng.pick<[string, string]>([
        ['last-event-id', c.rng.pick(['-1', 'abc', '1e3', '99999999999999999999', ' 5 ', ''])],
        ['x-forwarded-for', '1.2.3.4, ::1, junk'],
        ['forwarded', 'for=unknown;proto=gopher'],
        ['x-http-method-override', 'DELETE'],
        ['expect', '100-continue'],
        ['range', 'bytes=0-1'],
        ['if-none-match', '*'],
        ['cookie', 'a=b; __proto__=c'],
        ['origin', 'null'],
        ['x-request-id', 'x'.repeat(500)],
        ['request-id', '../../etc'],
      ]);
      d.headers[k] = v;
    },
  },
];

const ID_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';
const PREFIX_OF_PARAM: Record<string, string> = { workspaceId: 'ws', tenantId: 'tn', firmId: 'fm', assetId: 'as', deliveryId: 'dl', memberId: 'mb' };

function unknownId(param: string, template: string, c: Ctx): string {
  if (param === 'number') return c.rng.pick(['US99999999B2', 'EP1234567A1', 'us10000101b9']);
  if (param === 'serial') return c.rng.pick(['12345678', '00000000', '99999999']);
  if (param === 'state') return c.rng.pick(['ZZ', 'xx', 'NY']);
  if (param === 'filing') return c.rng.pick(['0000', 'NOPE-NOPE', '20230001011']);
  if (param === 'file') return c.rng.pick(['nope.svg', 'matter-x.svg', 'a.svg']);
  if (param === 'district' || param === 'case') return c.rng.pick(['zz', '1:99-cv-9']);
  if (param === 'id' && template.includes('/entity/')) return c.rng.pick(['99999', '000000000000']);
  const prefix = PREFIX_OF_PARAM[param] ?? (template.includes('/webhooks/{id}') ? 'wh' : template.includes('/assets/{id}') ? 'as' : 'mt');
  let s = `${prefix}_`;
  for (let i = 0; i < 25; i++) s += ID_CHARS[c.rng.int(36)];
  return s;
}

const CROSSABLE = new Set(['id', 'assetId', 'deliveryId', 'workspaceId', 'tenantId', 'firmId']);

const JUNK_IDS = ['%00', '%2F', '..', '.', '%2e%2e', '%', '%zz', '%C0%AF', '%ED%A0%80', '%F0%9F%92%A9', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '%20', '%E2%80%AE', 'a%0d%0ab', '*', '$', "'", '%22', '%3Cx%3E', '%7Bid%7D', ';', '%3F', '%23', 'null', 'undefined', '-1', '0', 'NaN', '1e308', '%25', '%5C', '~'];

const pathMutators: Mutator[] = [
  {
    name: 'unknown-id',
    phase: 'path',
    weight: 8,
    applies: anyUntouched,
    apply(d, c) {
      const [name, i] = untouched(d, c)!;
      d.segments[i] = encodeURIComponent(unknownId(name, d.op.template, c));
      if (!['practitionerId', 'district', 'case'].includes(name)) d.mustRefuse = true;
    },
  },
  {
    name: 'long-id',
    phase: 'path',
    weight: 4,
    applies: anyUntouched,
    apply(d, c) {
      const [name, i] = untouched(d, c)!;
      const n = c.rng.pick([65, 100, 101, 256, 2000, 8000]);
      d.segments[i] = c.rng.chance(0.8) ? 'a'.repeat(n) : '%F0%9F%97%BA'.repeat(Math.ceil(n / 4));
      if (!['district', 'case'].includes(name)) d.mustRefuse = true;
    },
  },
  {
    name: 'junk-id',
    phase: 'path',
    weight: 6,
    applies: anyUntouched,
    apply(d, c) {
      const [, i] = untouched(d, c)!;
      d.segments[i] = c.rng.pick(JUNK_IDS);
      d.offRoute = true;
    },
  },
  {
    name: 'cross-grain-id',
    phase: 'path',
    weight: 4,
    applies: (d) => [...d.params.keys()].some((k) => CROSSABLE.has(k) && !d.touched.has(k)),
    apply(d, c) {
      const [name] = untouched(d, c, (k) => CROSSABLE.has(k))!;
      const other = c.rng.pick(c.world.grains.filter((g) => g !== d.grain));
      const pool = name === 'assetId' ? other.pools.assets : name === 'deliveryId' ? other.pools.deliveries : name === 'id' ? (d.op.template.includes('/webhooks/') ? other.pools.webhooks : d.op.template.includes('/assets/') ? other.pools.assets : other.pools.matters) : [other.id];
      if (!pool.length) return;
      d.segments[d.params.get(name)!] = encodeURIComponent(c.rng.pick(pool));
    },
  },
  {
    name: 'path-shape',
    phase: 'path',
    weight: 2,
    applies: () => true,
    apply(d, c) {
      const how = c.rng.pick(['trailing-slash', 'double-slash', 'upper', 'extra-segment', 'dot-segment']);
      d.mutations[d.mutations.length - 1] += `:${how}`;
      if (how === 'trailing-slash') d.segments.push('');
      else if (how === 'double-slash') d.segments.splice(1 + c.rng.int(d.segments.length), 0, '');
      else if (how === 'upper') d.segments = d.segments.map((s) => s.toUpperCase());
      else if (how === 'extra-segment') d.segments.push(c.rng.pick(['x', '..', 'admin', '%2e%2e', 'events']));
      else d.segments.splice(1 + c.rng.int(d.segments.length), 0, '.');
      d.offRoute = true;
    },
  },
  {
    name: 'method',
    phase: 'path',
    weight: 4,
    applies: () => true,
    apply(d, c) {
      d.method = c.rng.pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'PURGE'].filter((m) => m !== d.method));
      d.mutations[d.mutations.length - 1] += `:${d.method}`;
      d.offRoute = true;
    },
  },
  {
    name: 'bad-query',
    phase: 'path',
    weight: 5,
    applies: () => true,
    apply(d, c) {
      const names = d.op.params.filter((p) => p.in === 'query').map((p) => p.name);
      const name = names.length && c.rng.chance(0.8) ? c.rng.pick(names) : c.rng.pick(['fuzz', '__proto__', 'constructor[prototype][polluted]', 'a[b]', '', 'limit', 'after']);
      const value = c.rng.pick(['abc', '-1', '0', '501', '1e308', '1.5', 'NaN', '', '%', '%zz', '%00', '9'.repeat(400), 'true', '[]', '{}', 'x'.repeat(3000), '0x10', '+1', '%E2%80%AE', '%C3%A9']);
      d.mutations[d.mutations.length - 1] += `:${name || '(empty)'}`;
      const pair: [string, string] = [encodeURIComponent(name).replace(/%5B/g, '[').replace(/%5D/g, ']'), value];
      if (c.rng.chance(0.3)) d.query.push(pair, pair);
      else d.query.push(pair);
      const p = d.op.params.find((x) => x.in === 'query' && x.name === name);
      // A declared integer parameter given, once, a value that is no number at all, or no integer: refused.
      if (p && p.schema.type === 'integer' && d.query.filter(([k]) => k === pair[0]).length === 1 && ['abc', '1.5', 'NaN', 'true', '[]', '{}'].includes(value)) d.mustRefuse = true;
    },
  },
];

export const MUTATORS: Mutator[] = [...valueMutators, ...textMutators, ...headerMutators, ...pathMutators];
