/**
 * Traces (issue 45), from a real service on each journal exporting OTLP/HTTP
 * to a receiver on a loopback port: the client's `traceparent` is continued,
 * and one trace follows an advance from its request through the command, the
 * decision and the journal append, into the Gig the outbox posts and the
 * webhook delivered for it, each a child of the command that journaled its
 * cause. No span says an id, a name or a URL a customer gave.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from '../helpers/processes.ts';
import { receiver } from '../helpers/receiver.ts';
import { JOURNALS, otlpReceiver, startService, type ExportedSpan, type TelemetryService } from '../helpers/telemetry.ts';

describe.each(JOURNALS)('traces on the %s journal', (journal) => {
  let otlp: Awaited<ReturnType<typeof otlpReceiver>>;
  let hook: Awaited<ReturnType<typeof receiver>>;
  let service: TelemetryService;

  beforeAll(async () => {
    otlp = await otlpReceiver();
    hook = await receiver();
    service = await startService(journal, { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '100' });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await Promise.all([otlp?.close(), hook?.close()]);
  });

  it('follows one advance under the client\'s traceparent into the Gig it posts and the webhook it causes', async () => {
    const ws = (await send(service.url, 'POST', '/workspaces')).body.workspace.id as string;
    const W = `/workspaces/${ws}`;
    expect((await send(service.url, 'POST', `${W}/webhooks`, { url: hook.url, events: ['matter.escalated'] })).status).toBe(201);
    const matter = (await send(service.url, 'POST', `${W}/matters`, { matterType: 'patent_provisional', client: { name: 'Ada Inventor' }, asset: { kind: 'patent_application', title: 'Self-folding map' } })).body.matter.id as string;
    for (let i = 0; i < 3; i++) expect((await send(service.url, 'POST', `${W}/matters/${matter}/advance`, {})).status).toBe(200);

    // review -> sign: the reserved act escalates a Gig (the outbox posts it) and the webhook endpoint hears of it.
    const traceId = randomBytes(16).toString('hex');
    const clientSpan = randomBytes(8).toString('hex');
    const escalated = await send(service.url, 'POST', `${W}/matters/${matter}/advance`, {}, { traceparent: `00-${traceId}-${clientSpan}-01` });
    expect(escalated.status).toBe(200);
    const gig = escalated.body.escalated.gigId as string;
    await hook.until(1);

    const inTrace = () => otlp.spans.filter((s) => s.traceId === traceId);
    const named = (name: string | RegExp) => inTrace().find((s) => (typeof name === 'string' ? s.name === name : name.test(s.name)));
    await otlp.until(() => ['command matter', 'decide matter', 'append events', 'outbox gig.posted', 'webhook POST'].every((n) => named(n)) && named(/advance$/) !== undefined);

    const request = named('POST /workspaces/:workspaceId/matters/:id/advance')!;
    expect(request.parentSpanId).toBe(clientSpan);
    expect(request.kind).toBe(2); // SERVER
    expect(request.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/workspaces/:workspaceId/matters/:id/advance', 'url.path': '/workspaces/:workspaceId/matters/:id/advance', 'http.response.status_code': 200 });
    const command = named('command matter')!;
    expect(command.parentSpanId).toBe(request.spanId);
    expect(named('decide matter')!.parentSpanId).toBe(command.spanId);
    const byId = new Map(inTrace().map((s) => [s.spanId, s]));
    const underCommand = (span: ExportedSpan) => {
      for (let at: ExportedSpan | undefined = span; at; at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined) if (at === command) return true;
      return false;
    };
    const append = inTrace().filter((s) => s.name === 'append events');
    expect(append.some(underCommand)).toBe(true);
    expect(append[0].attributes).toMatchObject({ 'db.system.name': journal === 'postgres' ? 'postgresql' : 'sqlite', 'db.operation.name': 'append' });
    // The intent carried the command's context through the journal: the post is the command's child, whoever made it.
    const post = named('outbox gig.posted')!;
    expect(post.parentSpanId).toBe(command.spanId);
    expect(post.attributes).toMatchObject({ 'legalwork.effect': 'gig.posted', 'legalwork.outcome': 'delivered' });
    // The webhook worker read the fact from the tail later, on its own turn: its delivery joins the same trace.
    const delivery = named('webhook POST')!;
    expect(delivery.parentSpanId).toBe(command.spanId);
    expect(delivery.attributes).toMatchObject({ 'legalwork.webhook.event_type': 'matter.escalated', 'http.response.status_code': 200, 'legalwork.outcome': 'delivered' });

    // Nothing a caller gave, nor any id, in any span of any trace.
    const secrets = [ws, matter, gig, 'Ada', 'Self-folding', hook.url, new URL(hook.url).port];
    const said = otlp.spans.flatMap((s) => [s.name, s.status.message ?? '', ...Object.values(s.attributes).map(String)]);
    expect(said.filter((text) => secrets.some((secret) => text.includes(secret)))).toEqual([]);
  }, 60_000);

  it('records a refused request as an answer, without its wording, and nothing of a request the client marked not sampled', async () => {
    const traceId = randomBytes(16).toString('hex');
    const refused = await send(service.url, 'POST', `/workspaces/ws_${'z'.repeat(24)}/matters`, { matterType: 'patent_provisional' }, { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` });
    expect(refused.status).toBe(404);
    await otlp.until((spans) => spans.some((s) => s.traceId === traceId));
    const request = otlp.spans.find((s) => s.traceId === traceId)!;
    expect(request.attributes['http.response.status_code']).toBe(404);
    // A 4xx is an answer, not an error of the service, and the refusal's wording (it names the grain asked for) is not exported.
    expect(request.status.code ?? 0).toBe(0);
    expect(JSON.stringify(otlp.bodies)).not.toContain('z'.repeat(24));

    const unsampled = randomBytes(16).toString('hex');
    expect((await send(service.url, 'GET', '/healthz', undefined, { traceparent: `00-${unsampled}-${randomBytes(8).toString('hex')}-00` })).status).toBe(200);
    const marker = randomBytes(16).toString('hex');
    expect((await send(service.url, 'GET', '/healthz', undefined, { traceparent: `00-${marker}-${randomBytes(8).toString('hex')}-01` })).status).toBe(200);
    await otlp.until((spans) => spans.some((s) => s.traceId === marker));
    expect(otlp.spans.filter((s) => s.traceId === unsampled)).toEqual([]);
  }, 60_000);
});
