/**
 * The tracing port on OpenTelemetry: the Node SDK with an OTLP/HTTP exporter
 * (JSON, to `OTEL_EXPORTER_OTLP_ENDPOINT`/v1/traces, or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), and Fastify's official
 * instrumentation (`@fastify/otel`) for the request span, which continues an
 * incoming W3C `traceparent`. The SDK reads the standard `OTEL_*` variables
 * itself (the sampler, `OTEL_SERVICE_NAME`, the batch processor's timing,
 * the exporter's headers); its metrics and logs stay off: the metrics are
 * the Prometheus door's.
 *
 * What a span may say: route templates, methods, status codes, the kind of
 * entity and of effect, outcomes, refusal codes, the journal's adapter and
 * operation. Never an id (a grain's id is its capability), a key, a URL a
 * customer registered, a name or an email: the request span's `url.path` is
 * the route template, and neither the framework's exceptions nor their
 * messages are recorded (a refusal's wording may quote what the caller sent).
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Span } from '@opentelemetry/api';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK, tracing as sdkTracing } from '@opentelemetry/sdk-node';
import { ATTR_HTTP_ROUTE, ATTR_URL_PATH } from '@opentelemetry/semantic-conventions';
import type { FastifyInstance } from 'fastify';
import { REFUSALS } from '../domain/refusals.ts';
import type { ActiveSpan, SpanAttributeName, SpanOptions, Tracer } from '../lib/telemetry.ts';

export interface Tracing {
  tracer: Tracer;
  /** Registers the request span on the app: before any other hook or route. */
  instrument(app: FastifyInstance): Promise<void>;
  /** Exports what is buffered and stops. */
  stop(): Promise<void>;
}

const KINDS: Record<NonNullable<SpanOptions['kind']>, SpanKind> = {
  internal: SpanKind.INTERNAL,
  client: SpanKind.CLIENT,
  server: SpanKind.SERVER,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
};

/** Starts the SDK (once per process) and answers the port's tracer over it. */
export function startTracing(): Tracing {
  const fastify = new FastifyOtelInstrumentation({
    // The request span only: the route's handler and the hooks run inside it, and the engine's own spans say what they did.
    instrumentHandler: false,
    instrumentHooks: false,
    recordExceptions: false,
    requestHook(span, request) {
      const route = request.routeOptions.url ?? 'unmatched';
      // OpenTelemetry's HTTP server span name, `{method} {http.route}`; the path is the template, never its ids.
      span.updateName(`${request.method} ${route}`);
      span.setAttribute(ATTR_URL_PATH, route);
      span.setAttribute(ATTR_HTTP_ROUTE, route);
    },
  });
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME || 'legalwork',
    traceExporter: redacting(new OTLPTraceExporter()),
    instrumentations: [fastify],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  const tracer = trace.getTracer('legalwork');
  return {
    tracer: {
      span(name, attributes, work, options) {
        const parent = options?.parent ? propagation.extract(ROOT_CONTEXT, { traceparent: options.parent }) : context.active();
        return tracer.startActiveSpan(name, { attributes, kind: KINDS[options?.kind ?? 'internal'] }, parent, async (span) => {
          try {
            return await work(activeSpan(span));
          } catch (error) {
            failed(span, error);
            throw error;
          } finally {
            span.end();
          }
        });
      },
      carried() {
        const span = trace.getActiveSpan();
        if (!span) return undefined;
        const { traceId, spanId, traceFlags } = span.spanContext();
        if (!(traceFlags & TraceFlags.SAMPLED)) return undefined;
        return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
      },
    },
    instrument: async (app) => {
      await app.register(fastify.plugin());
    },
    stop: () => sdk.shutdown(),
  };
}

function activeSpan(span: Span): ActiveSpan {
  return {
    set: (key, value) => span.setAttribute(key, value),
    fail: (reason) => span.setStatus({ code: SpanStatusCode.ERROR, message: reason }),
  };
}

/**
 * A unit of work that threw: a refusal (a 4xx the catalog words) is an
 * answer, said by its code; anything else is an error, said by its code or
 * class, never by its message (which may quote what a caller sent).
 */
function failed(span: Span, error: unknown): void {
  const { status, code, name } = (error ?? {}) as { status?: unknown; code?: unknown; name?: unknown };
  if (typeof status === 'number' && status < 500 && typeof code === 'string') {
    // A catalog code only: a code the catalog does not name is not from a set the code closes.
    if (Object.hasOwn(REFUSALS, code)) span.setAttribute('legalwork.refusal.code' satisfies SpanAttributeName, code);
    return;
  }
  span.setStatus({ code: SpanStatusCode.ERROR, message: typeof code === 'string' ? code : typeof name === 'string' ? name : 'error' });
}

/** The scope of `@fastify/otel`'s spans. */
const FASTIFY_SCOPE = '@fastify/otel';

/**
 * The exporter, with the framework's request spans stripped of what they
 * would say of a refusal: `@fastify/otel` marks a request whose hook or
 * route threw as an error, with the error's message, and a refusal's wording
 * may quote what the caller sent (an id, an email). A request answered under
 * 500 is an answer, not an error (OpenTelemetry's HTTP server conventions);
 * a 5xx stays an error, without the message. Spans of the service's own
 * (`legalwork`) say only closed-set reasons, and pass as they are.
 */
function redacting(exporter: sdkTracing.SpanExporter): sdkTracing.SpanExporter {
  const redact = (span: sdkTracing.ReadableSpan): sdkTracing.ReadableSpan => {
    if (span.instrumentationScope.name !== FASTIFY_SCOPE || span.status.code === SpanStatusCode.UNSET) return span;
    const status = Number(span.attributes['http.response.status_code']);
    return Object.create(span, { status: { value: status >= 500 ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.UNSET } }, events: { value: [] } }) as sdkTracing.ReadableSpan;
  };
  return {
    export: (spans, done) => exporter.export(spans.map(redact), done),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}
