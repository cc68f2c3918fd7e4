/**
 * Registry identifiers as people write them, read once into one canonical
 * form. Pure: no I/O, no data set. The capability routes call these on every
 * path parameter and body field that names a patent, a trademark or a state,
 * then look the canonical form up and echo it.
 *
 * - A patent number: an optional two-letter country code (US when left out),
 *   5 to 11 digits, an optional kind code (a letter and an optional digit:
 *   B1, B2, A1, E); spaces, commas, dots and hyphens anywhere are separators
 *   and dropped; any case. `US10000101B2`, `10000101`, `US 10,000,101 B2`,
 *   `us10000101b2` and `US-10000101-B2` all read. The canonical form is
 *   `US10000101B2`, or `US10000101` when no kind code was written: which
 *   patent that names is the data set's to say (`resolvePatent`).
 * - A trademark serial: 8 digits, with spaces, hyphens, commas or dots
 *   between them dropped (`97-000202`, `97 000 202`). Canonical: `97000202`.
 * - A state: a two-letter USPS code or the state's name, any case, spaces
 *   and dots ignored around it (`de`, `De`, `DE`, `Delaware`, `new york`,
 *   `N.Y.`). Canonical: the upper-case code.
 *
 * Each kind also carries the JSON-schema `pattern` its fields declare: only
 * the characters and length the reader takes, so the schema never refuses a
 * form the reader accepts, and a value the reader cannot read reaches
 * `identifier()`, whose refusal lists the accepted forms with an example.
 */
import { refusal } from './refusals.ts';

export type IdentifierKind = 'patent' | 'trademark' | 'state';

/** A patent number, read. `canonical` is what the answers echo. */
export interface PatentNumber {
  country: string;
  digits: string;
  kind?: string;
  canonical: string;
}

/** What one kind of identifier accepts, for schemas, refusals and docs alike. */
export interface IdentifierForms {
  /** What it is, in a sentence's words ("a patent number"). */
  noun: string;
  /** The forms it takes, each shown by an example. */
  forms: readonly string[];
  /** A canonical example (a record of the synthetic data set). */
  example: string;
  /** The JSON-schema pattern of fields that take it: the reader's alphabet and length, nothing stricter. */
  pattern: string;
  /** The schema `description` of fields that take it. */
  description: string;
}

const PATENT_CHARS = /^[A-Za-z0-9 ,.-]{1,40}$/;
const PATENT_SHAPE = /^([A-Z]{2})?([0-9]{5,11})([A-Z][0-9]?)?$/;
const SERIAL_CHARS = /^[0-9 ,.-]{1,20}$/;
const STATE_CHARS = /^[A-Za-z .]{1,30}$/;

/** USPS codes of the states, the District of Columbia and the territories, with their names. */
export const STATES: Readonly<Record<string, string>> = {
  AL: 'Alabama', AK: 'Alaska', AZ: 'Arizona', AR: 'Arkansas', CA: 'California', CO: 'Colorado', CT: 'Connecticut', DE: 'Delaware', FL: 'Florida', GA: 'Georgia',
  HI: 'Hawaii', ID: 'Idaho', IL: 'Illinois', IN: 'Indiana', IA: 'Iowa', KS: 'Kansas', KY: 'Kentucky', LA: 'Louisiana', ME: 'Maine', MD: 'Maryland',
  MA: 'Massachusetts', MI: 'Michigan', MN: 'Minnesota', MS: 'Mississippi', MO: 'Missouri', MT: 'Montana', NE: 'Nebraska', NV: 'Nevada', NH: 'New Hampshire', NJ: 'New Jersey',
  NM: 'New Mexico', NY: 'New York', NC: 'North Carolina', ND: 'North Dakota', OH: 'Ohio', OK: 'Oklahoma', OR: 'Oregon', PA: 'Pennsylvania', RI: 'Rhode Island', SC: 'South Carolina',
  SD: 'South Dakota', TN: 'Tennessee', TX: 'Texas', UT: 'Utah', VT: 'Vermont', VA: 'Virginia', WA: 'Washington', WV: 'West Virginia', WI: 'Wisconsin', WY: 'Wyoming',
  DC: 'District of Columbia', PR: 'Puerto Rico', GU: 'Guam', VI: 'U.S. Virgin Islands', AS: 'American Samoa', MP: 'Northern Mariana Islands',
};
/** A state's name as the reader compares it: letters and single spaces, upper case, dots dropped. */
const nameKey = (s: string) => s.toUpperCase().replace(/\./g, '').replace(/ +/g, ' ').trim();
const BY_NAME = new Map(Object.entries(STATES).flatMap(([code, name]) => [[nameKey(name), code], ...(name.startsWith('U.S. ') ? [[nameKey(name.slice(5)), code] as const] : [])]));

/** Reads a patent number, or `undefined` if it is not one in any accepted form. */
export function readPatentNumber(raw: string): PatentNumber | undefined {
  if (!PATENT_CHARS.test(raw)) return undefined;
  const m = PATENT_SHAPE.exec(raw.toUpperCase().replace(/[ ,.-]/g, ''));
  if (!m) return undefined;
  const [, country = 'US', digits, kind] = m;
  return { country, digits, ...(kind ? { kind } : {}), canonical: `${country}${digits}${kind ?? ''}` };
}

/** Reads a trademark serial into its 8 digits, or `undefined`. */
export function readTrademarkSerial(raw: string): string | undefined {
  if (!SERIAL_CHARS.test(raw)) return undefined;
  const digits = raw.replace(/[ ,.-]/g, '');
  return /^[0-9]{8}$/.test(digits) ? digits : undefined;
}

/** Reads a state code or name into its upper-case USPS code, or `undefined`. */
export function readStateCode(raw: string): string | undefined {
  if (!STATE_CHARS.test(raw)) return undefined;
  const key = nameKey(raw);
  const code = key.replace(/ /g, '');
  if (code.length === 2 && code in STATES) return code;
  return BY_NAME.get(key);
}

export const IDENTIFIERS: Readonly<Record<IdentifierKind, IdentifierForms>> = {
  patent: {
    noun: 'a patent number',
    forms: ['US10000202B2 (country code, number, kind code)', 'US10000202 or 10000202 (country code and kind code may be left out: the country is then US, and the number names the one patent with that number)', 'US 10,000,202 B2 (spaces, commas, dots or hyphens anywhere)', 'us10000202b2 (any case)'],
    example: 'US10000202B2',
    pattern: PATENT_CHARS.source,
    description: 'a patent number: an optional two-letter country code (US when left out), 5 to 11 digits, an optional kind code (B1, B2, A1 …); spaces, commas, dots and hyphens are ignored, and any case reads (US10000202B2, US10000202, 10000202, "US 10,000,202 B2", us10000202b2). Answers echo the canonical form, US10000202B2',
  },
  trademark: {
    noun: 'a trademark serial number',
    forms: ['97000202 (8 digits)', '97-000202 or 97 000 202 (spaces, hyphens, commas or dots between the digits)'],
    example: '97000202',
    pattern: SERIAL_CHARS.source,
    description: 'a trademark serial number: 8 digits, with any spaces, hyphens, commas or dots between them ignored (97000202, 97-000202, "97 000 202"). Answers echo the 8 digits',
  },
  state: {
    noun: 'a U.S. state',
    forms: ['DE (the two-letter USPS code)', 'de or De (any case)', 'Delaware (the state\'s name, any case)'],
    example: 'DE',
    pattern: STATE_CHARS.source,
    description: 'a U.S. state, the District of Columbia or a territory: its two-letter USPS code or its name, in any case (DE, de, Delaware). Answers echo the upper-case code',
  },
};

const READERS = { patent: (raw: string) => readPatentNumber(raw)?.canonical, trademark: readTrademarkSerial, state: readStateCode } satisfies Record<IdentifierKind, (raw: string) => string | undefined>;

/** The refusal of an identifier that cannot be read (or resolved): it names the field and lists the accepted forms with an example. */
export function identifierRefusal(kind: IdentifierKind, field: string, value: string, problem?: string) {
  const f = IDENTIFIERS[kind];
  return refusal('IDENTIFIER_UNRECOGNIZED', { field, value, noun: f.noun, problem, forms: f.forms }, { field, accepted: [...f.forms], fix: `send ${field} in one of the accepted forms, for example ${f.example}` });
}

/** The canonical form of `raw`, or the refusal naming `field` and the accepted forms. */
export function identifier(kind: IdentifierKind, field: string, raw: string): string {
  const canonical = READERS[kind](raw);
  if (canonical === undefined) throw identifierRefusal(kind, field, raw);
  return canonical;
}

/** The patent number `raw`, read, or the refusal naming `field`. */
export function patentNumber(field: string, raw: string): PatentNumber {
  const read = readPatentNumber(raw);
  if (!read) throw identifierRefusal('patent', field, raw);
  return read;
}

/**
 * Which of `known` (canonical numbers, each with its kind code) `n` names:
 * with a kind code, the one equal to it; without, every one with its country
 * and digits. One is an answer, none a not-found, several a choice the caller
 * makes (the data set holds none such, but a reissue would share its number).
 */
export function resolvePatent<T extends { number: string }>(known: readonly T[], n: PatentNumber): T[] {
  if (n.kind) return known.filter((p) => p.number === n.canonical);
  const prefix = `${n.country}${n.digits}`;
  return known.filter((p) => p.number.startsWith(prefix) && /^([A-Z][0-9]?)?$/.test(p.number.slice(prefix.length)));
}
