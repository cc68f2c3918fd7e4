/**
 * The identifier reader (`src/domain/identifiers.ts`): every accepted form of
 * a canonical id reads to it, reading is idempotent, garbage is refused, and
 * every form it accepts matches the pattern its schema fields declare (so the
 * schema never refuses what the reader would take).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NAME_SUFFIXES, nameSuffixOk } from '../../src/domain/capabilities/drafts.ts';
import { PATENTS } from '../../src/domain/capabilities/dataset.ts';
import { identifier, IDENTIFIERS, patentNumber, readPatentNumber, readStateCode, readTrademarkSerial, resolvePatent, STATES } from '../../src/domain/identifiers.ts';
import { Refusal } from '../../src/domain/refusal.ts';

const SEPARATORS = [' ', ',', '.', '-'];
const letter = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ');
const digit = fc.constantFrom(...'0123456789');

/** A canonical patent number: country, 5-11 digits, an optional kind code. */
const canonicalPatent = fc.record({
  country: fc.oneof(fc.constant('US'), fc.string({ unit: letter, minLength: 2, maxLength: 2 })),
  digits: fc.string({ unit: digit, minLength: 5, maxLength: 11 }),
  kind: fc.option(fc.tuple(letter, fc.option(digit, { nil: '' })).map(([l, d]) => l + d), { nil: undefined }),
}).map((p) => ({ ...p, canonical: `${p.country}${p.digits}${p.kind ?? ''}` }));

/** `s` with each character's case flipped at random and separators put between characters at random (at most `budget` characters added). */
const humanized = (s: string, separators: string[], budget: number) =>
  fc.tuple(fc.array(fc.boolean(), { minLength: s.length, maxLength: s.length }), fc.array(fc.option(fc.constantFrom(...(separators.length ? separators : [''])), { nil: '' }), { minLength: s.length, maxLength: s.length })).map(([upper, seps]) => {
    let added = 0;
    return [...s].map((ch, i) => {
      const sep = i > 0 && added < budget ? seps[i] : '';
      added += sep.length;
      return sep + (upper[i] ? ch.toUpperCase() : ch.toLowerCase());
    }).join('');
  });

/** "10,000,202": digits grouped by threes from the right. */
const grouped = (digits: string, sep: string) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, sep);

const matchesPattern = (kind: keyof typeof IDENTIFIERS, value: string) => new RegExp(IDENTIFIERS[kind].pattern).test(value);

describe('patent numbers', () => {
  it.each([
    ['US10000202B2', 'US10000202B2'],
    ['us10000202b2', 'US10000202B2'],
    ['US 10,000,202 B2', 'US10000202B2'],
    ['US-10000202-B2', 'US10000202B2'],
    ['10,000,202 B2', 'US10000202B2'],
    ['10000202B2', 'US10000202B2'],
    ['US10000202', 'US10000202'],
    ['10000202', 'US10000202'],
    ['10.000.202', 'US10000202'],
    ['U.S. 10,000,202', 'US10000202'],
    ['EP1234567A1', 'EP1234567A1'],
    ['US10000303B1', 'US10000303B1'],
  ])('%j reads as %s', (raw, canonical) => {
    expect(readPatentNumber(raw)?.canonical).toBe(canonical);
    expect(matchesPattern('patent', raw)).toBe(true);
  });

  it.each(['', 'not-a-number', 'US1234', 'US123456789012', 'USA10000202', '10000202B22', 'US10000202/B2', 'US10000202B2!', 'D123,456', '   ', 'B2'])('%j is refused', (raw) => {
    expect(readPatentNumber(raw)).toBeUndefined();
  });

  it('every human form of a canonical number reads to it, and matches the schema pattern', () => {
    fc.assert(
      fc.property(canonicalPatent.chain((p) => fc.tuple(fc.constant(p), fc.constantFrom(...SEPARATORS), fc.constantFrom('', ' ', '-'))).chain(([p, sep, apart]) => {
        // Country and kind may stand apart from the number; the number may be grouped; then any case and stray separators.
        const written = `${p.country}${apart}${grouped(p.digits, sep)}${p.kind ? ` ${p.kind}` : ''}`;
        return fc.tuple(fc.constant(p), humanized(written, SEPARATORS, 40 - written.length));
      }), ([p, raw]) => {
        expect(readPatentNumber(raw)?.canonical).toBe(p.canonical);
        expect(matchesPattern('patent', raw)).toBe(true);
      }),
    );
  });

  it('a US number reads the same with or without its country code', () => {
    fc.assert(fc.property(canonicalPatent.filter((p) => p.country === 'US'), (p) => {
      expect(readPatentNumber(p.canonical.slice(2))?.canonical).toBe(p.canonical);
    }));
  });

  it('reading is idempotent, and what it reads has the canonical shape', () => {
    fc.assert(fc.property(fc.oneof(fc.string({ maxLength: 45 }), fc.string({ unit: fc.constantFrom(...'US0123456789 ,.-Bb'), maxLength: 30 })), (raw) => {
      const once = readPatentNumber(raw);
      if (!once) return;
      expect(once.canonical).toMatch(/^[A-Z]{2}[0-9]{5,11}([A-Z][0-9]?)?$/);
      expect(readPatentNumber(once.canonical)).toEqual(once);
      expect(matchesPattern('patent', raw)).toBe(true);
    }));
  });

  it('garbage is refused: a character outside the reader\'s alphabet', () => {
    fc.assert(fc.property(fc.string({ maxLength: 20 }), fc.constantFrom(...'!/#?_:;*+()[]{}@$%&\t\n'), fc.string({ maxLength: 20 }), (a, bad, b) => {
      expect(readPatentNumber(`${a}${bad}${b}`)).toBeUndefined();
    }));
  });

  it('a number without a kind code names the one patent with that number; with one, exactly that patent', () => {
    for (const p of PATENTS) {
      const n = readPatentNumber(p.number.replace(/[A-Z][0-9]?$/, ''))!;
      expect(resolvePatent(PATENTS, n)).toEqual([p]);
      expect(resolvePatent(PATENTS, readPatentNumber(p.number)!)).toEqual([p]);
    }
    expect(resolvePatent(PATENTS, readPatentNumber('US10000202B1')!)).toEqual([]);
    expect(resolvePatent(PATENTS, readPatentNumber('EP10000202')!)).toEqual([]);
    // The number is the whole number: 1000020 is not a prefix of US10000202B2's.
    expect(resolvePatent(PATENTS, readPatentNumber('US1000020')!)).toEqual([]);
    const reissued = [{ number: 'US10000202B2' }, { number: 'US10000202E' }];
    expect(resolvePatent(reissued, readPatentNumber('10000202')!)).toEqual(reissued);
    expect(resolvePatent(reissued, readPatentNumber('10000202 E')!)).toEqual([reissued[1]]);
  });
});

describe('trademark serials', () => {
  it.each([['97000202', '97000202'], ['97-000202', '97000202'], ['97 000 202', '97000202'], ['97,000,202', '97000202'], ['97.000.202', '97000202']])('%j reads as %s', (raw, canonical) => {
    expect(readTrademarkSerial(raw)).toBe(canonical);
    expect(matchesPattern('trademark', raw)).toBe(true);
  });

  it.each(['', '9700020', '970002020', 'SN97000202', '97_000202', '97/000202', '  '])('%j is refused', (raw) => {
    expect(readTrademarkSerial(raw)).toBeUndefined();
  });

  it('every separated form of an 8-digit serial reads to it; reading is idempotent; garbage is refused', () => {
    const serial = fc.string({ unit: digit, minLength: 8, maxLength: 8 });
    fc.assert(fc.property(serial.chain((s) => fc.tuple(fc.constant(s), humanized(s, SEPARATORS, 12))), ([s, raw]) => {
      expect(readTrademarkSerial(raw)).toBe(s);
      expect(readTrademarkSerial(s)).toBe(s);
      expect(matchesPattern('trademark', raw)).toBe(true);
    }));
    fc.assert(fc.property(fc.string({ maxLength: 24 }), (raw) => {
      const once = readTrademarkSerial(raw);
      if (once === undefined) return;
      expect(once).toMatch(/^[0-9]{8}$/);
      expect(readTrademarkSerial(once)).toBe(once);
    }));
    fc.assert(fc.property(fc.string({ unit: digit, minLength: 0, maxLength: 12 }).filter((s) => s.length !== 8), (s) => {
      expect(readTrademarkSerial(s)).toBeUndefined();
    }));
  });
});

describe('states', () => {
  it('every code, in any case, and every name, in any case, reads to the upper-case code', () => {
    const entries = Object.entries(STATES);
    fc.assert(fc.property(fc.constantFrom(...entries).chain(([code, name]) => fc.tuple(fc.constant(code), fc.oneof(humanized(code, [], 0), fc.tuple(humanized(name, [], 0), fc.boolean()).map(([n, loose]) => (loose ? ` ${n.replace(/ /g, '  ')} ` : n))))), ([code, raw]) => {
      expect(readStateCode(raw)).toBe(code);
      expect(readStateCode(code)).toBe(code);
      expect(matchesPattern('state', raw)).toBe(true);
    }));
  });

  it.each([['de', 'DE'], ['De', 'DE'], ['DE', 'DE'], ['delaware', 'DE'], ['New York', 'NY'], ['N.Y.', 'NY'], ['virgin islands', 'VI'], ['District of Columbia', 'DC']])('%j reads as %s', (raw, code) => {
    expect(readStateCode(raw)).toBe(code);
  });

  it.each(['', 'D', 'ZZ', 'XX', 'Delawar', 'DE1', 'D-E', 'Atlantis'])('%j is refused', (raw) => {
    expect(readStateCode(raw)).toBeUndefined();
  });

  it('reading is idempotent', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom(...'ABDEINOWYKRdelawrnyk .'), maxLength: 12 }), (raw) => {
      const once = readStateCode(raw);
      if (once !== undefined) expect(readStateCode(once)).toBe(once);
    }));
  });
});

describe('a value that cannot be read', () => {
  it.each([
    ['patent', 'params.number', 'not-a-number', 'US10000202B2'],
    ['trademark', 'body.serial', '97-0002', '97000202'],
    ['state', 'params.state', 'ZZ', 'DE'],
  ] as const)('a %s is refused 422 IDENTIFIER_UNRECOGNIZED naming the field, the accepted forms and an example', (kind, field, raw, example) => {
    let thrown: unknown;
    try {
      identifier(kind, field, raw);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Refusal);
    const refused = thrown as Refusal;
    expect(refused.status).toBe(422);
    const body = refused.toBody();
    expect(body).toMatchObject({ code: 'IDENTIFIER_UNRECOGNIZED', field, accepted: [...IDENTIFIERS[kind].forms], fix: expect.stringContaining(example) });
    expect(body.error).toContain(field);
    expect(body.error).toContain(JSON.stringify(raw));
    for (const form of IDENTIFIERS[kind].forms) expect(body.error).toContain(form);
  });

  it('a readable value is returned canonical', () => {
    expect(identifier('patent', 'f', 'us 10,000,202 b2')).toBe('US10000202B2');
    expect(identifier('trademark', 'f', '97 000 202')).toBe('97000202');
    expect(identifier('state', 'f', 'delaware')).toBe('DE');
    expect(patentNumber('f', '10000202')).toEqual({ country: 'US', digits: '10000202', canonical: 'US10000202' });
  });

  it('every documented form and example reads', () => {
    const readers = { patent: (s: string) => readPatentNumber(s)?.canonical, trademark: readTrademarkSerial, state: readStateCode };
    for (const [kind, f] of Object.entries(IDENTIFIERS) as Array<[keyof typeof IDENTIFIERS, (typeof IDENTIFIERS)[keyof typeof IDENTIFIERS]]>) {
      expect(readers[kind](f.example), kind).toBe(f.example);
      // Each form is shown by its leading example(s), before the parenthesis.
      for (const form of f.forms) for (const shown of form.split(' (')[0].split(' or ')) expect(readers[kind](shown), `${kind}: ${shown}`).toBeDefined();
    }
  });
});

describe('entity names', () => {
  it('each listed suffix, in any case, ends a valid name of its type; a name without one is refused', () => {
    for (const [type, suffixes] of Object.entries(NAME_SUFFIXES) as Array<['llc' | 'corporation', readonly string[]]>) {
      for (const suffix of suffixes) {
        expect(nameSuffixOk(type, `Cartofold Maps ${suffix}`), suffix).toBe(true);
        expect(nameSuffixOk(type, `Cartofold Maps ${suffix.toLowerCase()}`), suffix).toBe(true);
      }
      expect(nameSuffixOk(type, 'Cartofold Maps')).toBe(false);
    }
    expect(nameSuffixOk('llc', 'Cartofold Maps Inc.')).toBe(false);
    expect(nameSuffixOk('llc', 'CartofoldLLC')).toBe(false);
  });
});
