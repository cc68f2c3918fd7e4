/**
 * Reading an inspection for a person: the words the inspector shows of it
 * (its caption, as of which fact, a fact's details, the links to its other
 * doors, what arrived while the page was open), which fact an address asks
 * for, and the inspections as of earlier facts kept in the page. Pure: no
 * DOM, unit-tested.
 */
import type { Inspection, InspectionStep } from './contract.ts';

/** An instant as a person reads it: `2026-11-26 09:00:00Z`. */
export const timeOf = (iso: string | null | undefined): string => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '');

/** The diagram's caption: the record as of what, in which state, its path and its doors. */
export function inspectionCaption(title: string, insp: Inspection): string {
  const opens = (insp.open ?? []).map((o) => o.command);
  const steps = (insp.path ?? []).length;
  const as = insp.at.latest ? 'now' : `as of fact #${insp.at.seq}`;
  return `${title} diagram: ${as} in ${insp.state.status} (${insp.state.path})${insp.state.final ? ', a terminal' : ''}; ${steps} step${steps === 1 ? '' : 's'} numbered on its path; ${opens.length ? `open: ${opens.join(', ')}` : 'no door open'}; ${(insp.refused ?? []).length} commands refused.`;
}

/** Which fact the page shows, in words: the head's, or an earlier one of the head's version. */
export function asOfWords(insp: Inspection, head: Inspection['head']): string {
  return insp.at.latest ? `the head (fact #${insp.at.seq}, version ${insp.at.version})` : `fact #${insp.at.seq} (version ${insp.at.version} of ${head.version})`;
}

/** Who asked for a fact, in one line: `proposedBy: agent; actor: Ada`. */
export function provenanceText(p: unknown): string {
  if (!p || typeof p !== 'object' || !Object.keys(p).length) return '';
  return Object.entries(p)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('; ');
}

/** A fact's kind as the timeline names it: `stage · review`. */
export const kindWords = (s: InspectionStep): string => s.kind + (s.verb ? ` · ${s.verb}` : '');

/** A fact's details in the timeline, label and value; the ones it does not have are left out. */
export function factRows(s: InspectionStep): Array<[string, string]> {
  const rows: Array<[string, unknown]> = [
    ['step', `${s.step}${s.event ? ` · ${s.event}` : ''}${s.to ? ` → ${s.to}` : ''}`],
    ['by', s.by],
    ['actor', s.actor],
    ['Gig', s.gigId],
    ['Signer', s.signer],
    ['provenance', provenanceText(s.provenance)],
  ];
  return rows.filter(([, value]) => value !== undefined && value !== null && value !== '').map(([label, value]) => [label, String(value)]);
}

/** A link of the record's to another of its doors, with its words. */
export interface InspectionLink {
  name: string;
  href: string;
  words: string;
}

const LINK_WORDS: Record<string, string> = { self: 'inspection (JSON)', entity: 'JSON', ladder: 'its Deadline Ladder' };

/** The record's other doors, as the inspection links them (its JSON, a Matter's ladder, …); not the page itself, nor the stream it follows. */
export function inspectionLinks(insp: Inspection): InspectionLink[] {
  const links: Record<string, unknown> = { ...insp.subject.links };
  // A Matter's Asset has a Deadline Ladder beside it, under the same grain.
  if (!links.ladder && insp.matter?.assetId) links.ladder = insp.subject.links.entity.replace(/\/matters\/[^/]+$/, `/deadlines/${encodeURIComponent(insp.matter.assetId)}/inspect`);
  return Object.entries(links).flatMap(([name, href]) => (typeof href === 'string' && name !== 'page' && name !== 'stream' ? [{ name, href, words: LINK_WORDS[name] ?? name }] : []));
}

/** The fact an address's `?at=` asks for, or null for now: a whole number below the head's seq (at or past the head is now). */
export function askedSeq(at: string | null, headSeq: number): number | null {
  return at !== null && /^\d+$/.test(at) && Number(at) < headSeq ? Number(at) : null;
}

const facts = (n: number) => `${n} new fact${n === 1 ? '' : 's'}`;

/** What arrived while the page was open, for a screen reader: the facts, and where the record stands now (or which fact the reader still views). */
export function arrivalWords(added: InspectionStep[], latest: Inspection, pinned: number | null): string {
  return pinned === null
    ? `${facts(added.length)}: ${added.map((s) => s.kind).join(', ')}; now ${latest.state.status}.`
    : `${facts(added.length)} arrived; you are viewing fact #${pinned}.`;
}

/** How many inspections as of earlier facts a page keeps, so moving back and forth through the timeline does not fetch them again. */
const KEPT_VIEWS = 64;

/** Inspections as of a fact, the most recently used kept: past `capacity`, the least recently used goes. */
export class KeptViews<V> {
  private readonly views = new Map<number, V>();

  constructor(private readonly capacity = KEPT_VIEWS) {}

  get(seq: number): V | undefined {
    const view = this.views.get(seq);
    if (view === undefined) return undefined;
    this.views.delete(seq);
    this.views.set(seq, view);
    return view;
  }

  set(seq: number, view: V): void {
    this.views.set(seq, view);
    if (this.views.size > this.capacity) this.views.delete(this.views.keys().next().value!);
  }

  get size(): number {
    return this.views.size;
  }
}
