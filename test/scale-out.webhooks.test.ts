/**
 * Webhooks across two real service processes on one PostgreSQL journal
 * (issue 16): an endpoint registered through one is known to both, the
 * events either commits are delivered by one of them (the lease holder), each
 * once, in journal order; when the holder is SIGKILLed, the other takes the
 * lease and delivers what is committed after. An owner's cap on enabled
 * endpoints holds across the two: registrations racing through both pass it
 * by none.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { webhookEventId, webhookTypesOf } from '../src/domain/webhook-events.ts';
import { send, ServicePair } from './helpers/processes.ts';
import { receiver } from './helpers/receiver.ts';
import { HANG_MS } from './helpers/wait.ts';

let pair: ServicePair | undefined;
let capped: ServicePair | undefined;
afterAll(async () => Promise.all([pair?.close(), capped?.close()]));

describe('webhooks across two processes', () => {
  it('are delivered once each by the lease holder, and by the other once the holder is killed', async () => {
    pair = await ServicePair.start();
    const hook = await receiver();
    const ws = (await send(pair.url('a'), 'POST', '/workspaces')).body.workspace.id as string;
    const W = `/workspaces/${ws}`;
    const endpoint = (await send(pair.url('a'), 'POST', `${W}/webhooks`, { url: hook.url, events: ['*'] })).body.webhook;
    expect(endpoint.id).toMatch(/^wh_/);
    // Registered through A, known to B (it follows the webhooks grain).
    await expect.poll(async () => (await send(pair!.url('b'), 'GET', `${W}/webhooks/${endpoint.id}`)).status, { timeout: HANG_MS }).toBe(200);

    const walk = async (via: 'a' | 'b', client?: string) => {
      const created = await send(pair!.url(via), 'POST', `${W}/matters`, { matterType: 'patent_provisional', ...(client ? { client: { name: client } } : {}) });
      expect(created.status).toBe(201);
      for (let i = 0; i < 5; i++) await send(pair!.url(via), 'POST', `${W}/matters/${created.body.matter.id}/advance`, {});
    };
    const expectedIds = async () => {
      const tail = (await send(pair!.url('b'), 'GET', `${W}/events?limit=500`)).body.results as Array<{ seq: number; kind: string; data: Record<string, unknown> }>;
      return tail.flatMap((e) => webhookTypesOf(e).map((type) => webhookEventId({ grain: ws, seq: e.seq }, type)));
    };
    const delivered = () => hook.received.filter((r) => r.answered === 200).map((r) => String(r.headers['webhook-id']));

    await walk('b', 'Fulfilling Client (fixture)');
    await walk('a');
    const before = await expectedIds();
    await expect.poll(() => new Set(delivered()).size, { timeout: HANG_MS }).toBe(before.length);
    // One process delivers: each event once, in journal order.
    expect(delivered()).toEqual(before);

    // The holder goes (A registered it and took the lease at once); B takes the lease and delivers what follows.
    await pair.kill('a');
    await walk('b', 'Fulfilling Client (fixture)');
    const after = await expectedIds();
    expect(after.length).toBeGreaterThan(before.length);
    await expect.poll(() => new Set(delivered()).size, { timeout: HANG_MS }).toBe(after.length);
    const firsts = delivered().filter((id, i, all) => all.indexOf(id) === i);
    expect(firsts).toEqual(after);
    await hook.close();
  }, 60_000);
});

describe('the cap on an owner\'s enabled endpoints across two processes', () => {
  it('holds when registrations race through both: of 24, exactly 16 are registered, and both list the same 16', async () => {
    capped = await ServicePair.start();
    const ws = (await send(capped.url('a'), 'POST', '/workspaces')).body.workspace.id as string;
    const W = `/workspaces/${ws}`;
    const answers = await Promise.all(Array.from({ length: 24 }, (_, n) => send(capped!.url(n % 2 ? 'a' : 'b'), 'POST', `${W}/webhooks`, { url: `http://127.0.0.1:9/hook-${n}`, events: ['*'] })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(16);
    expect(answers.filter((a) => a.status === 409).map((a) => a.body.code)).toEqual(Array(8).fill('WEBHOOK_ENDPOINT_LIMIT'));
    const ids = answers.filter((a) => a.status === 201).map((a) => a.body.webhook.id).sort();
    for (const via of ['a', 'b'] as const) {
      await expect.poll(async () => ((await send(capped!.url(via), 'GET', `${W}/webhooks`)).body.results as Array<{ id: string }>).map((e) => e.id).sort(), { timeout: HANG_MS }).toEqual(ids);
    }
  }, 60_000);
});
