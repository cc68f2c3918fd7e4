/**
 * The record routes' draft artifacts. Each is assembled mechanically from the
 * caller's own inputs (and the synthetic data set): structure, never judgment.
 * Nothing here is legal advice; each artifact says so, and says which act
 * (signing, filing, sending, advising) is reserved to a licensed Signer.
 *
 * Drafts are deterministic (no clock, no ids in the text), so the same inputs
 * always give the same bytes and the same sha256.
 */
import { DATASET_AS_OF, PATENTS, trademarkOf, words } from './dataset.ts';
import { readPatentNumber, resolvePatent } from '../identifiers.ts';
import { sha256Hex } from '../hash.ts';

export interface Draft {
  kind: string;
  title: string;
  content: string;
}

export interface Artifact extends Draft {
  mediaType: 'text/markdown';
  sha256: string;
  bytes: number;
}

export const NOT_ADVICE = 'DRAFT generated mechanically from the inputs given. This is not legal advice, and no one reviewed it. A licensed practitioner must review it before any use; signing, filing, sending and advising are reserved acts.';

export function toArtifact(draft: Draft): Artifact {
  const content = `${draft.content.trimEnd()}\n`;
  const bytes = Buffer.from(content, 'utf8');
  return { ...draft, content, mediaType: 'text/markdown', sha256: sha256Hex(bytes), bytes: bytes.length };
}

const doc = (title: string, ...sections: string[]) => [`# ${title}`, '', `> ${NOT_ADVICE}`, '', ...sections].join('\n');
const lower = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
const sentence = (s: string) => s.trim().replace(/[.;,\s]+$/, '');

export function draftClaims(input: { title: string; summary: string; features: string[]; optionalFeatures?: string[] }): Draft {
  const noun = lower(sentence(input.title));
  const elements = input.features.map(sentence);
  const independent = `1. A ${noun}, comprising:\n${elements.map((e, i) => `   ${e}${i === elements.length - 1 ? '.' : i === elements.length - 2 ? '; and' : ';'}`).join('\n')}`;
  const dependents = (input.optionalFeatures ?? []).map((f, i) => `${i + 2}. The ${noun} of claim 1, further comprising ${lower(sentence(f))}.`);
  return {
    kind: 'patent_claims',
    title: `Draft claims: ${sentence(input.title)}`,
    content: doc(`Draft claims: ${sentence(input.title)}`, '## Invention summary (as given)', '', sentence(input.summary) + '.', '', '## Claims', '', independent, ...(dependents.length ? ['', ...dependents] : [])),
  };
}

export function draftSpec(input: { title: string; field: string; background?: string; summary: string; figures?: string[] }): Draft {
  const figures = input.figures ?? [];
  return {
    kind: 'patent_specification',
    title: `Draft specification: ${sentence(input.title)}`,
    content: doc(
      sentence(input.title),
      '## Technical field',
      '',
      `The disclosure relates to ${lower(sentence(input.field))}.`,
      '',
      '## Background',
      '',
      input.background ? sentence(input.background) + '.' : '[Background to be written by the inventor: the problem and the known approaches.]',
      '',
      '## Summary',
      '',
      sentence(input.summary) + '.',
      '',
      '## Brief description of the drawings',
      '',
      ...(figures.length ? figures.map((f, i) => `FIG. ${i + 1} is ${lower(sentence(f))}.`) : ['[No figures were listed.]']),
      '',
      '## Detailed description',
      '',
      '[To be written by the inventor with the practitioner: each embodiment in enough detail to make and use it.]',
    ),
  };
}

/** References from the synthetic corpus sharing words with the query, most shared first. */
export function priorArtReport(input: { query: string; cpc?: string }): Draft & { references: Array<{ number: string; title: string; shared: string[] }> } {
  const terms = [...new Set(words(input.query))];
  const references = PATENTS.map((p) => {
    const text = new Set(words(`${p.title} ${p.abstract}`));
    return { number: p.number, title: p.title, cpc: p.cpc, shared: terms.filter((t) => text.has(t)) };
  })
    .filter((r) => r.shared.length > 0 && (!input.cpc || r.cpc.some((c) => c.startsWith(input.cpc!.trim()))))
    .sort((a, b) => b.shared.length - a.shared.length || a.number.localeCompare(b.number))
    .map(({ number, title, shared }) => ({ number, title, shared }));
  const rows = references.map((r) => `| ${r.number} | ${r.title} | ${r.shared.join(', ')} |`);
  return {
    kind: 'prior_art_report',
    title: `Prior-art report: ${sentence(input.query)}`,
    references,
    content: doc(
      `Prior-art report: ${sentence(input.query)}`,
      `Corpus: the synthetic data set as of ${DATASET_AS_OF}${input.cpc ? `, narrowed to CPC ${input.cpc.trim()}` : ''}. References are listed by how many query words they share; no reference is characterised as anticipating or rendering anything obvious.`,
      '',
      ...(rows.length ? ['| Reference | Title | Shared words |', '|---|---|---|', ...rows] : ['No reference in the corpus shares a word with the query.']),
    ),
  };
}

const OA_SECTIONS: Record<string, string> = {
  '101': 'Subject-matter eligibility (35 U.S.C. 101): restate the claims at issue; identify where the claims recite a practical application or an inventive concept, if the practitioner finds one.',
  '102': 'Novelty (35 U.S.C. 102): map each claim element against the cited reference; note any element the practitioner finds absent from it.',
  '103': 'Obviousness (35 U.S.C. 103): list the references combined; record the stated reason to combine; note any element or teaching-away the practitioner identifies.',
  '112': 'Written description, enablement and definiteness (35 U.S.C. 112): quote the terms objected to and locate support in the specification as filed.',
};

export function oaResponseOutline(input: { applicationNumber: string; rejections: Array<{ basis: string; claims: number[]; reference?: string }> }): Draft {
  return {
    kind: 'office_action_response_outline',
    title: `Office-action response outline: ${input.applicationNumber}`,
    content: doc(
      `Office-action response outline: application ${input.applicationNumber}`,
      ...input.rejections.flatMap((r, i) => [`## ${i + 1}. Rejection under section ${r.basis} of claims ${r.claims.join(', ')}${r.reference ? ` over ${r.reference}` : ''}`, '', OA_SECTIONS[r.basis], '']),
      '## Remarks',
      '',
      '[The practitioner writes the arguments and any amendments; this outline only orders the sections.]',
    ),
  };
}

/** The data set's patent a US citation names, written in any form a patent number reads in (`identifiers.ts`). */
function citedPatent(citation: string) {
  const n = readPatentNumber(citation);
  const found = n ? resolvePatent(PATENTS, n) : [];
  return found.length === 1 ? found[0] : undefined;
}

export function idsListing(input: { applicationNumber: string; references: Array<{ citation: string; kind: 'us_patent' | 'foreign_patent' | 'npl'; date?: string }> }): Draft {
  const rows = input.references.map((r, i) => {
    const known = r.kind === 'us_patent' ? citedPatent(r.citation) : undefined;
    return `| ${i + 1} | ${r.kind.replace('_', ' ')} | ${r.citation} | ${known ? known.grantedOn : (r.date ?? '')} | ${known ? `${known.title} (${known.assignee})` : ''} |`;
  });
  return {
    kind: 'information_disclosure_statement',
    title: `Information disclosure statement: ${input.applicationNumber}`,
    content: doc(`Information disclosure statement: application ${input.applicationNumber}`, '| # | Kind | Citation | Date | Title (where the corpus knows it) |', '|---|---|---|---|---|', ...rows),
  };
}

const TM_SECTIONS: Record<string, string> = {
  '2(d)': 'Likelihood of confusion, section 2(d): set out the marks, the goods and services, and the channels of trade side by side.',
  '2(e)(1)': 'Mere descriptiveness, section 2(e)(1): record how the mark is used and any evidence of acquired distinctiveness the owner holds.',
  specimen: 'Specimen: list the specimen of use on file and any substitute specimen with its declaration of use.',
  identification: 'Identification of goods and services: set out the identification as filed and the amended wording proposed.',
  disclaimer: 'Disclaimer: quote the required disclaimer wording.',
};

export function trademarkOaResponse(input: { serial: string; refusals: Array<{ basis: string; note?: string }> }): Draft {
  const mark = trademarkOf(input.serial);
  return {
    kind: 'trademark_office_action_response',
    title: `Trademark office-action response draft: ${input.serial}`,
    content: doc(
      `Trademark office-action response draft: serial ${input.serial}${mark ? ` (${mark.mark}, ${mark.owner})` : ''}`,
      ...input.refusals.flatMap((r, i) => [`## ${i + 1}. ${TM_SECTIONS[r.basis]}`, ...(r.note ? ['', `Owner's note: ${sentence(r.note)}.`] : []), '']),
    ),
  };
}

const CLAUSES: Array<[string, RegExp]> = [
  ['parties', /\b(between|by and among)\b/i],
  ['term', /\bterm\b/i],
  ['termination', /\bterminat(e|ion)\b/i],
  ['payment', /\b(payment|fees?|invoice)\b/i],
  ['confidentiality', /\bconfidential(ity)?\b/i],
  ['intellectual property', /\b(intellectual property|licen[cs]e)\b/i],
  ['indemnification', /\bindemnif(y|ication)\b/i],
  ['limitation of liability', /\blimitation of liability|liability (is|shall be) limited\b/i],
  ['warranties', /\bwarrant(y|ies)\b/i],
  ['governing law', /\bgoverning law|governed by the laws\b/i],
  ['dispute resolution', /\b(arbitration|dispute)\b/i],
  ['assignment', /\bassign(ment)?\b/i],
  ['notices', /\bnotices?\b/i],
  ['entire agreement', /\bentire agreement\b/i],
];

/** Which standard clauses the text mentions: a presence checklist, never an assessment. */
export function contractReview(input: { title: string; text: string }): Draft & { clauses: Array<{ clause: string; present: boolean }> } {
  const clauses = CLAUSES.map(([clause, re]) => ({ clause, present: re.test(input.text) }));
  const wordCount = words(input.text).length;
  return {
    kind: 'contract_review_checklist',
    title: `Contract review checklist: ${sentence(input.title)}`,
    clauses,
    content: doc(
      `Contract review checklist: ${sentence(input.title)}`,
      `The text has ${wordCount} words. The checklist records whether each standard clause is mentioned; it does not assess any clause, its enforceability or its fit.`,
      '',
      '| Clause | Mentioned |',
      '|---|---|',
      ...clauses.map((c) => `| ${c.clause} | ${c.present ? 'yes' : 'no'} |`),
    ),
  };
}

export function demandLetterDraft(input: { from: { name: string }; to: { name: string }; amountUsd?: number; facts: string; deadlineDays?: number }): Draft {
  const days = input.deadlineDays ?? 14;
  return {
    kind: 'demand_letter_draft',
    title: `Demand letter draft: ${input.from.name} to ${input.to.name}`,
    content: doc(
      `Demand letter draft (unsigned; not on letterhead)`,
      `To: ${input.to.name}`,
      `From: ${input.from.name}`,
      '',
      '## Facts (as given by the sender)',
      '',
      sentence(input.facts) + '.',
      '',
      '## Demand',
      '',
      input.amountUsd !== undefined ? `${input.from.name} requests payment of ${input.amountUsd.toFixed(2)} USD within ${days} days of this letter.` : `${input.from.name} requests a response within ${days} days of this letter.`,
      '',
      '[Sending this letter on attorney letterhead is a reserved act: POST /demand-letter/send routes it to a licensed Signer.]',
    ),
  };
}

/**
 * The words a Delaware entity's name ends with, by its type (any case): an
 * LLC's name must contain "Limited Liability Company", "L.L.C." or "LLC"
 * (6 Del. C. § 18-102), a corporation's a word of association such as
 * "Inc." or "Corporation" (8 Del. C. § 102(a)(1)); the service holds the
 * mechanical form of the rule, the word at the end of the name.
 */
export const NAME_SUFFIXES = {
  llc: ['LLC', 'L.L.C.', 'Limited Liability Company'],
  corporation: ['Inc.', 'Inc', 'Incorporated', 'Corp.', 'Corp', 'Corporation', 'Company', 'Co.', 'Co', 'Limited', 'Ltd.', 'Ltd'],
} as const;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const SUFFIX = {
  llc: new RegExp(`\\b(?:${NAME_SUFFIXES.llc.map(escape).join('|')})$`, 'i'),
  corporation: new RegExp(`\\b(?:${NAME_SUFFIXES.corporation.map(escape).join('|')})$`, 'i'),
};

/** Whether the name carries the suffix the entity type requires: a mechanical naming rule. */
export const nameSuffixOk = (entityType: 'llc' | 'corporation', name: string) => SUFFIX[entityType].test(name.trim());

export function formationDocs(input: { entityName: string; entityType: 'llc' | 'corporation'; registeredAgent: { name: string; address: string }; organizer: { name: string }; purpose?: string }): Draft {
  const llc = input.entityType === 'llc';
  const instrument = llc ? 'Certificate of Formation' : 'Certificate of Incorporation';
  return {
    kind: llc ? 'de_certificate_of_formation' : 'de_certificate_of_incorporation',
    title: `${instrument}: ${input.entityName}`,
    content: doc(
      `${instrument} of ${input.entityName}`,
      `1. The name of the ${llc ? 'limited liability company' : 'corporation'} is ${input.entityName}.`,
      `2. The address of its registered office in the State of Delaware is ${input.registeredAgent.address}, and the name of its registered agent at that address is ${input.registeredAgent.name}.`,
      `3. Purpose: ${input.purpose ? sentence(input.purpose) : 'any lawful act or activity for which entities of this kind may be organized under the laws of the State of Delaware'}.`,
      '',
      `${llc ? 'Authorized person' : 'Incorporator'}: ${input.organizer.name} (signature reserved to the ${llc ? 'authorized person' : 'incorporator'})`,
    ),
  };
}
