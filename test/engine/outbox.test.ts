/**
 * Effects after the journal: a reserved act's Gig is journaled, with its id,
 * before it is posted, and posted from the journal. A process that dies
 * between the append and the post leaves a pending intent, never a Gig the
 * journal does not know; the next life posts it, once. A post the network
 * refuses is retried until it is taken.
 */
import { describe, expect, it } from 'vitest';
import { simulatedSupplyNetwork, SupplyRefused, type GigPost, type SupplyNetwork } from '../../src/domain/supply-network.ts';
import { createApp } from '../../src/compose.ts';
import { SqliteJournal } from '../../src/journal/sqlite.ts';
import { call, tempDir, testApp, workspace } from '../helpers/app.ts';
import { rmSync } from 'node:fs';
import { HANG_MS } from '../helpers/wait.ts';

/** A network that records every post (by Gig id); `hold` keeps posts from ever returning. */
function recordingNetwork(options: { hold?: boolean; refuseFirst?: number } = {}) {
  const posts: GigPost[] = [];
  let reached!: () => void;
  const firstPost = new Promise<void>((r) => (reached = r));
  let refusals = options.refuseFirst ?? 0;
  const real = simulatedSupplyNetwork();
  const network: SupplyNetwork = {
    async post(gig) {
      posts.push(gig);
      reached();
      if (options.hold) return new Promise(() => undefined);
      if (refusals-- > 0) throw new SupplyRefused('the network is down for maintenance');
      return real.post(gig);
    },
  };
  return { network, posts, firstPost };
}

describe('the outbox', () => {
  it('a process that dies between the append and the post leaves one Gig, which the next life posts once', async () => {
    const dir = tempDir();
    try {
      // First life: the escalation commits, then the process "dies" while its post is in flight.
      const first = recordingNetwork({ hold: true });
      const journal1 = new SqliteJournal(dir);
      const app1 = await createApp({ journal: journal1, supply: first.network });
      await app1.ready();
      const ws = await workspace(app1);
      const m = (await call(app1, 'POST', `${ws}/matters`, { matterType: 'patent_provisional' })).body.matter.id as string;
      for (let i = 0; i < 3; i++) await call(app1, 'POST', `${ws}/matters/${m}/advance`);
      void call(app1, 'POST', `${ws}/matters/${m}/advance`); // never answers: its post never returns
      await first.firstPost;
      const [intent] = (await journal1.readIntents(null, 100)).filter((e) => e.stream === m);
      expect(intent).toMatchObject({ kind: 'gig.posted' });
      const gigId = intent.data.gigId as string;
      expect(first.posts.map((p) => p.gigId)).toEqual([gigId]);
      // The crash: nothing is closed or flushed; a second life opens the same files.
      const second = recordingNetwork();
      const journal2 = new SqliteJournal(dir);
      const app2 = await createApp({ journal: journal2, supply: second.network });
      await app2.ready();
      await second.firstPost;
      await expect.poll(async () => journal2.streamVersion(`delivered:${gigId}`), { timeout: HANG_MS }).toBe(1);
      // One Gig, the one the journal names, posted once in this life under its journaled id.
      expect(second.posts.map((p) => p.gigId)).toEqual([gigId]);
      const matter = (await call(app2, 'GET', `${ws}/matters/${m}`)).body.matter;
      expect(matter).toMatchObject({ status: 'waiting_on_signer', pendingGigId: gigId });
      // A third life finds nothing left to post.
      await app2.close();
      const third = recordingNetwork();
      const journal3 = new SqliteJournal(dir);
      const app3 = await createApp({ journal: journal3, supply: third.network });
      await app3.ready();
      expect(await app3.services.outbox.resume()).toBe(0);
      expect(third.posts).toEqual([]);
      await app3.close();
      await journal3.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('retries a post the network refused until it takes it, and applies the answer it then gives', async () => {
    const { network, posts } = recordingNetwork({ refuseFirst: 1 });
    const app = await testApp({ supply: network });
    try {
      const ws = await workspace(app);
      const m = (await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', client: { name: 'Fulfilling Client (fixture)' } })).body.matter.id as string;
      for (let i = 0; i < 3; i++) await call(app, 'POST', `${ws}/matters/${m}/advance`);
      const escalated = await call(app, 'POST', `${ws}/matters/${m}/advance`);
      expect(escalated.body.escalated.pending).toMatch(/down for maintenance/);
      // The retry (a second later) posts the same Gig, and the fixture Signer's answer lands.
      await expect.poll(async () => (await call(app, 'GET', `${ws}/matters/${m}`)).body.matter.status, { timeout: HANG_MS }).toBe('sign');
      expect(posts.map((p) => p.gigId)).toEqual([escalated.body.escalated.gigId, escalated.body.escalated.gigId]);
    } finally {
      await app.close();
    }
  });
});
