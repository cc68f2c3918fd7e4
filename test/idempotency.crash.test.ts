/**
 * Idempotency-Key across a SIGKILL (issue 14), against the real service as
 * a child process: an idempotency record is journaled in the transaction of
 * the command it answers, so after a kill a retry under the same key either
 * replays the answer (it was kept), runs the command (it never committed),
 * or says the command committed and names what it wrote (its answer was
 * lost between the commit and the reply): never a second command.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { removeDir, spawnService, tempDataDir, type Child } from '../bench/lib/service.ts';
import { until } from './helpers/wait.ts';

interface Sent {
  status: number;
  text: string;
  body: any;
  replayed: boolean;
}

async function send(base: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Sent> {
  const res = await fetch(`${base}${path}`, { method, headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : undefined, replayed: res.headers.get('idempotent-replayed') === 'true' };
}

const dir = tempDataDir('legalwork-idempotency-crash-');
let child: Child | undefined;
afterAll(async () => {
  await child?.kill();
  removeDir(dir);
});

describe('Idempotency-Key across a SIGKILL', () => {
  it('replays an answer given before the kill, byte for byte, and the journal holds each command once', async () => {
    child = await spawnService(dir);
    const issued = await send(child.url, 'POST', '/keys', { email: 'crash@legalwork.test' });
    const keyed = { authorization: `Bearer ${issued.body.key}` };
    const ws = `/workspaces/${(await send(child.url, 'POST', '/workspaces', undefined)).body.workspace.id}`;
    const created = await send(child.url, 'POST', '/matters', { matterType: 'patent_provisional' }, { ...keyed, 'idempotency-key': 'create-1' });
    expect(created.status).toBe(201);
    const mid = (await send(child.url, 'POST', `${ws}/matters`, { matterType: 'patent_provisional' })).body.matter.id;
    const advanced = await send(child.url, 'POST', `${ws}/matters/${mid}/advance`, {}, { 'idempotency-key': 'advance-1' });
    expect(advanced.status).toBe(200);
    await child.kill();

    child = await spawnService(dir);
    const createdAgain = await send(child.url, 'POST', '/matters', { matterType: 'patent_provisional' }, { ...keyed, 'idempotency-key': 'create-1' });
    expect(createdAgain).toMatchObject({ status: 201, text: created.text, replayed: true });
    const advancedAgain = await send(child.url, 'POST', `${ws}/matters/${mid}/advance`, {}, { 'idempotency-key': 'advance-1' });
    expect(advancedAgain).toMatchObject({ status: 200, text: advanced.text, replayed: true });
    expect((await send(child.url, 'GET', '/matters', undefined, keyed)).body.results).toHaveLength(1);
    expect((await send(child.url, 'GET', `${ws}/matters/${mid}`, undefined)).body.matter.version).toBe(advanced.body.matter.version);
  }, 60_000);

  it('under load killed mid-flight: each retried key ends with exactly one Matter, replayed, run now, or named as committed', async () => {
    const ws = `/workspaces/${(await send(child!.url, 'POST', '/workspaces', undefined)).body.workspace.id}`;
    const keys: string[] = [];
    let stopped = false;
    let answered = 0;
    const clients = Array.from({ length: 12 }, async (_, n) => {
      for (let i = 0; !stopped; i++) {
        const key = `load-${n}-${i}`;
        keys.push(key);
        try {
          if ((await send(child!.url, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', asset: { title: key } }, { 'idempotency-key': key })).status === 201) answered++;
        } catch {
          return; // The process is gone: this request was never answered.
        }
      }
    });
    // A random moment once the load is being answered (however loaded the machine): each of those answers is kept, and replayed below.
    await until(() => answered >= 20, () => `20 answers under way (${answered})`);
    await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 700)));
    stopped = true;
    await child!.kill();
    await Promise.all(clients);

    child = await spawnService(dir);
    const matterOf = new Map<string, string>();
    const outcomes = { replayed: 0, ran: 0, lost: 0 };
    for (const key of keys) {
      const res = await send(child.url, 'POST', `${ws}/matters`, { matterType: 'patent_provisional', asset: { title: key } }, { 'idempotency-key': key });
      if (res.status === 201) {
        outcomes[res.replayed ? 'replayed' : 'ran']++;
        matterOf.set(key, res.body.matter.id);
      } else {
        expect(res.status, res.text).toBe(409);
        expect(res.body.code).toBe('IDEMPOTENCY_ANSWER_LOST');
        outcomes.lost++;
        const id = (res.body.wrote as string[]).find((s) => s.startsWith('mt_'))!;
        expect((await send(child.url, 'GET', `${ws}/matters/${id}`, undefined)).status).toBe(200);
        matterOf.set(key, id);
      }
    }
    expect(outcomes.replayed, JSON.stringify(outcomes)).toBeGreaterThan(10);
    // One Matter per key, and no Matter that no key accounts for.
    expect(new Set(matterOf.values()).size).toBe(keys.length);
    const counts = (await send(child.url, 'GET', ws, undefined)).body.workspace.counts;
    expect(counts.matters).toBe(keys.length);
  }, 90_000);
});
