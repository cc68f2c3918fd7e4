/**
 * Values that are valid by a JSON Schema (the subset the contract uses:
 * type, enum, const, properties, required, additionalProperties, items,
 * minItems/maxItems, uniqueItems, minLength/maxLength, pattern, minimum/
 * maximum, anyOf/oneOf/allOf), drawn from a seeded PRNG. Patterned strings
 * come from pools that fast-check's `stringMatching` draws once per pattern
 * (seeded from the same PRNG). `hint` lets the caller put real ids and
 * meaningful values where the schema alone would only reach a not-found.
 */
import fc from 'fast-check';
import type { Rng } from './rng.ts';
import type { Schema } from './contract.ts';

/** A hint's answer for a property to leave out. */
export const OMIT = Symbol('omit');

/** A value the caller knows fits (a real id, a fixture name), OMIT to leave the property out, or undefined to draw one from the schema. */
export type Hint = (name: string, schema: Schema, path: string[]) => unknown;

/** Strings that stay valid JSON strings and within most length bounds, but are not plain ASCII. */
export const UNICODE_SAMPLES = [
  'Ada Lovelace',
  'Zoë Ñúñez-Ørsted',
  '李小龙 知识产权',
  'مكتب براءات الاختراع',
  'שלום עולם',
  '\u202eevil\u202c name',
  '🧭 map 🗺️ 👩🏽‍⚖️',
  'e\u0301\u0301\u0301',
  'zero\u200bwidth\u200d',
  'line\nbreak\ttab',
  "O'Brien \"quoted\" \\ slash",
  '<b>bold</b> & co',
  '\u00a0non-breaking\u00a0',
];

const WORDS = ['map', 'fold', 'ada', 'acme', 'patent', 'claim', 'river', 'lamp', 'signal', 'gear', 'bolt', 'paper', 'north', 'delta'];

export class ValueGen {
  private readonly pools = new Map<string, string[]>();

  constructor(
    private readonly rng: Rng,
    private readonly hint: Hint = () => undefined,
  ) {}

  /** Strings matching `pattern` (drawn once, 64 of them), each within [min, max] UTF-16 units. */
  patterned(pattern: string, min = 0, max = Infinity): string {
    const key = `${pattern}|${min}|${max}`;
    let pool = this.pools.get(key);
    if (!pool) {
      const re = new RegExp(pattern);
      pool = fc
        .sample(fc.stringMatching(new RegExp(pattern)), { seed: this.rng.u32() | 0, numRuns: 200 })
        .filter((s) => s.length >= min && s.length <= max && re.test(s))
        .slice(0, 64);
      if (pool.length === 0) pool = [''];
      this.pools.set(key, pool);
    }
    return this.rng.pick(pool);
  }

  /** A plain string of `min`..`max` characters. */
  text(min = 0, max = 40): string {
    const cap = Math.min(max, Math.max(min, 24));
    const r = this.rng.next();
    let s: string;
    if (r < 0.7) {
      s = '';
      while (s.length < min || (s.length < cap && this.rng.chance(0.6))) s += (s ? ' ' : '') + this.rng.pick(WORDS);
    } else if (r < 0.85) {
      s = this.rng.pick(UNICODE_SAMPLES);
      while (s.length < min) s += s;
    } else {
      const n = this.rng.between(min, Math.min(max, Math.max(min, 400)));
      s = 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(Math.ceil(n / 36) + 1).slice(0, n);
    }
    if (s.length > max) s = s.slice(0, max);
    // Never cut a surrogate pair in two: a valid value stays well-formed.
    if (/[\ud800-\udbff]$/.test(s)) s = s.slice(0, -1);
    while (s.length < min) s += 'x';
    return s;
  }

  number(schema: Schema, integer: boolean): number {
    const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : undefined;
    const max = typeof schema.maximum === 'number' ? schema.maximum : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - 1 : undefined;
    const lo = min ?? (max !== undefined ? Math.min(0, max) : 0);
    const hi = max ?? lo + 1000;
    const r = this.rng.next();
    let v: number;
    if (r < 0.6) v = lo + this.rng.int(Math.min(hi - lo, 50) + 1);
    else if (r < 0.7) v = lo;
    else if (r < 0.8) v = hi;
    else v = lo + this.rng.next() * (hi - lo);
    if (integer) v = Math.max(Math.ceil(lo), Math.min(Math.floor(hi), Math.round(v)));
    else if (this.rng.chance(0.3)) v = Math.round(v * 100) / 100;
    return Math.max(lo, Math.min(hi, v));
  }

  /** A value valid by `schema`. `name` and `path` are the property it fills (for hints). */
  value(schema: Schema, name = '', path: string[] = [], depth = 0): unknown {
    const hinted = this.hint(name, schema, path);
    if (hinted !== undefined) return hinted;
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum)) return this.rng.pick(schema.enum);
    const branches = schema.anyOf ?? schema.oneOf;
    if (Array.isArray(branches) && branches.length) return this.value(this.rng.pick(branches), name, path, depth);
    if (Array.isArray(schema.allOf)) return this.value(Object.assign({}, ...schema.allOf), name, path, depth);
    let type = schema.type;
    if (Array.isArray(type)) type = this.rng.pick(type);
    if (!type) type = schema.properties ? 'object' : schema.items ? 'array' : this.rng.pick(['string', 'integer', 'boolean']);
    switch (type) {
      case 'string':
        return typeof schema.pattern === 'string' ? this.patterned(schema.pattern, schema.minLength ?? 0, schema.maxLength ?? Infinity) : this.text(schema.minLength ?? 0, schema.maxLength ?? 40);
      case 'integer':
        return this.number(schema, true);
      case 'number':
        return this.number(schema, false);
      case 'boolean':
        return this.rng.chance(0.5);
      case 'null':
        return null;
      case 'array': {
        const min = schema.minItems ?? 0;
        const max = Math.min(schema.maxItems ?? 4, Math.max(min, 4));
        const n = depth > 4 ? min : this.rng.between(min, max);
        const items: unknown[] = [];
        const seen = new Set<string>();
        for (let i = 0, tries = 0; items.length < n && tries < n * 5; tries++, i++) {
          const item = this.value(schema.items ?? {}, name, [...path, String(i)], depth + 1);
          if (schema.uniqueItems) {
            const k = JSON.stringify(item);
            if (seen.has(k)) continue;
            seen.add(k);
          }
          items.push(item);
        }
        return items;
      }
      case 'object':
      default: {
        const out: Record<string, unknown> = {};
        const required = new Set<string>(schema.required ?? []);
        for (const [prop, sub] of Object.entries<Schema>(schema.properties ?? {})) {
          if (required.has(prop) || (depth < 5 && this.rng.chance(0.5))) {
            const v = this.value(sub, prop, [...path, prop], depth + 1);
            if (v !== OMIT) out[prop] = v;
          }
        }
        const extra = schema.additionalProperties;
        if (extra && typeof extra === 'object' && depth < 5) {
          for (let i = this.rng.int(3); i > 0; i--) out[`${this.rng.pick(WORDS)}${i}`] = this.value(extra, '', [...path, '*'], depth + 1);
        }
        return out;
      }
    }
  }
}
