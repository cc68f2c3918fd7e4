/**
 * Sandbox workspaces: keyless, synthetic, TTL-bound grains with their own
 * journal tail. A workspace's opening is journaled in its own grain, so a
 * restart keeps it; only its TTL (measured on the wall clock) expires it.
 */
import { newId } from '../domain/ids.ts';
import { refuse } from '../domain/refusal.ts';
import type { Supervisor } from './supervisor.ts';

export const DEFAULT_SANDBOX_TTL_SECONDS = 24 * 60 * 60;

export interface GrainRecord {
  id: string;
  openedAt: string;
  expiresAt: string;
  ttlSeconds: number;
}

export class Workspaces {
  private readonly known = new Map<string, GrainRecord>();

  constructor(
    private readonly supervisor: Supervisor,
    private readonly ttlSeconds = DEFAULT_SANDBOX_TTL_SECONDS,
    private readonly now: () => number = Date.now,
  ) {}

  async open(): Promise<GrainRecord> {
    const id = newId('ws');
    const expiresAt = new Date(this.now() + this.ttlSeconds * 1000).toISOString();
    const [opened] = await this.supervisor.append(id, [
      { stream: id, expectedVersion: 0, events: [this.supervisor.stamp({ kind: 'workspace.opened', by: 'gate', note: `sandbox workspace opened; expires at ${expiresAt}`, data: { expiresAt, ttlSeconds: this.ttlSeconds } }, id)] },
    ]);
    const record = { id, openedAt: opened.at, expiresAt, ttlSeconds: this.ttlSeconds };
    this.known.set(id, record);
    return record;
  }

  /** The live workspace, or a 404 typed EMPTY naming the fix when unknown or expired. */
  async resolve(id: string): Promise<GrainRecord> {
    let record = this.known.get(id);
    if (!record && id.startsWith('ws_')) {
      const [opened] = await this.supervisor.journal.readStream(id);
      if (opened?.kind === 'workspace.opened' && opened.grain === id) {
        record = { id, openedAt: opened.at, expiresAt: opened.data.expiresAt as string, ttlSeconds: opened.data.ttlSeconds as number };
        this.known.set(id, record);
      }
    }
    if (!record || Date.parse(record.expiresAt) <= this.now()) throw refuse.grainGone('workspace', id);
    return record;
  }
}

export const workspaceProvenance = (id: string) => ({ environment: 'sandbox', service: 'legalwork', synthetic: true, workspace: id });
export const workspaceGraduation = { tier: 'identified', how: 'POST /keys with your email, then run the same calls on the top-level surface with Authorization: Bearer <key>' };
