/**
 * Conflicts ledgers. The platform holds hashes only (sha256 hex of a name; the
 * plaintext stays with the practitioner or firm). A ledger is append-only:
 * each entry is one journaled fact on the ledger's own stream, and there is no
 * update or delete door. Ledgers are never pooled: every read, write and
 * prescreen names exactly one ledger (one practitioner's, or one firm's) in one
 * grain, and nothing here looks across ledgers.
 */
import type { JournalEvent } from '../journal/store.ts';
import type { Supervisor } from './supervisor.ts';

export type LedgerOwner = { kind: 'practitioner'; id: string } | { kind: 'firm'; id: string };

export interface ConflictEntry {
  seq: number;
  nameHash: string;
  recordedAt: string;
}

export interface PrescreenVerdict {
  hit: boolean;
  /** The submitted hashes found in the ledger (each once, in submission order). */
  matched: string[];
  /** How many hashes were submitted. */
  checked: number;
  /** How many entries the ledger held when it was checked. */
  ledgerEntries: number;
}

const toEntry = (e: JournalEvent): ConflictEntry => ({ seq: e.seq, nameHash: e.data.nameHash as string, recordedAt: e.at });

export class Conflicts {
  constructor(private readonly supervisor: Supervisor) {}

  /** One stream per ledger per grain: the same practitioner id in two grains names two ledgers. */
  streamOf(grain: string, owner: LedgerOwner): string {
    return owner.kind === 'firm' ? `conflicts:${grain}:firm` : `conflicts:${grain}:practitioner:${owner.id}`;
  }

  async entries(grain: string, owner: LedgerOwner): Promise<ConflictEntry[]> {
    const stream = await this.supervisor.journal.readStream(this.streamOf(grain, owner));
    return stream.filter((e) => e.grain === grain && e.kind === 'conflicts.entry').map(toEntry);
  }

  /** Appends one hash. Serialized per ledger, so each append lands at the version it read. */
  record(grain: string, owner: LedgerOwner, nameHash: string): Promise<ConflictEntry> {
    const stream = this.streamOf(grain, owner);
    return this.supervisor.exclusive(stream, async () => {
      const version = await this.supervisor.journal.streamVersion(stream);
      const fact = { kind: 'conflicts.entry', by: owner.kind, note: `conflicts entry recorded on the ${owner.kind} ledger ${owner.id}`, data: { ledger: owner, nameHash } };
      const [written] = await this.supervisor.appendFact(grain, stream, version, fact, owner.id);
      return toEntry(written);
    });
  }

  /** Checks hashes against this one ledger. It never replaces the Signer's own full check. */
  async prescreen(grain: string, owner: LedgerOwner, nameHashes: string[]): Promise<PrescreenVerdict> {
    const entries = await this.entries(grain, owner);
    const held = new Set(entries.map((e) => e.nameHash));
    const matched = [...new Set(nameHashes.filter((h) => held.has(h)))];
    return { hit: matched.length > 0, matched, checked: nameHashes.length, ledgerEntries: entries.length };
  }
}
