/**
 * Webhook delivery across a SIGKILL (issue 15), against the real service as
 * a child process: deliveries are derived from the journal and each attempt
 * is journaled, so a service killed with deliveries pending (the receiver
 * failing, retries waiting) resumes them after the restart. Every event of a
 * committed fact arrives; none that the journal does not hold; an event
 * answered 2xx is not sent again beyond the at-least-once margin of the
 * attempt under way at the kill.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { removeDir, spawnService, tempDataDir, type Child } from '../bench/lib/service.ts';
import { webhookEventId, webhookTypesOf } from '../src/domain/webhook-events.ts';
import { receiver } from './helpers/receiver.ts';
import { until } from './helpers/wait.ts';

// The receiver never hangs: the timeout only has to outlast its answer on a loaded core (an attempt cut after it arrived is sent again).
const env = { LEGALWORK_WEBHOOK_TIME_SCALE: '0.001', LEGALWORK_WEBHOOK_TIMEOUT_MS: '5000' };
const dir = tempDataDir('legalwork-webhooks-crash-');
let child: Child | undefined;
afterAll(async () => {
  await child?.kill();
  removeDir(dir);
});

async function send(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, { method, ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}) });
  return res.json();
}

describe('webhook deliveries across a SIGKILL', () => {
  it('resume after the restart: every event of the journal arrives, none that it does not hold, each 2xx-answered at most twice', async () => {
    // Failing at first: the first deliveries are retried, and some are still waiting at the kill.
    const hook = await receiver([500, 'close', 500]);
    child = await spawnService(dir, env);
    const ws = (await send(child.url, 'POST', '/workspaces')).workspace.id as string;
    const W = `/workspaces/${ws}`;
    expect((await send(child.url, 'POST', `${W}/webhooks`, { url: hook.url, events: ['*'] })).type).toBe('OK');
    for (let m = 0; m < 6; m++) {
      const created = await send(child.url, 'POST', `${W}/matters`, { matterType: 'patent_provisional', ...(m % 2 ? { client: { name: 'Fulfilling Client (fixture)' } } : {}) });
      for (let i = 0; i < 5; i++) await send(child.url, 'POST', `${W}/matters/${created.matter.id}/advance`, {});
    }
    await hook.until(2);
    await child.kill();

    child = await spawnService(dir, env);
    // What the journal holds, and so what must arrive.
    const tail = (await send(child.url, 'GET', `${W}/events?limit=500`)).results as Array<{ seq: number; kind: string; data: Record<string, unknown> }>;
    const expected = new Set(tail.flatMap((e) => webhookTypesOf(e).map((type) => webhookEventId({ grain: ws, seq: e.seq }, type))));
    expect(expected.size).toBeGreaterThan(6);
    const delivered = () => new Set(hook.received.filter((r) => r.answered === 200).map((r) => String(r.headers['webhook-id'])));
    const missing = () => [...expected].filter((id) => !delivered().has(id));
    await until(() => missing().length === 0, () => `every event of the journal delivered; missing ${missing().join(', ')}`);
    for (const r of hook.received) expect(expected.has(String(r.headers['webhook-id']))).toBe(true);
    const answered = new Map<string, number>();
    for (const r of hook.received.filter((x) => x.answered === 200)) answered.set(String(r.headers['webhook-id']), (answered.get(String(r.headers['webhook-id'])) ?? 0) + 1);
    for (const [id, n] of answered) expect(n, id).toBeLessThanOrEqual(2);
    // In journal order: the first 2xx of each event follows the tail's order.
    const order = hook.received.filter((r) => r.answered === 200).map((r) => String(r.headers['webhook-id']));
    const firsts = order.filter((id, i) => order.indexOf(id) === i);
    const tailOrder = tail.flatMap((e) => webhookTypesOf(e).map((type) => webhookEventId({ grain: ws, seq: e.seq }, type)));
    expect(firsts).toEqual(tailOrder);
    await hook.close();
  }, 60_000);
});
