/**
 * Telemetry as a port (ARCHITECTURE, "Growing it (2026-12-01)"): the engine,
 * the journal adapters and the HTTP edge report through this small interface,
 * and nothing below `src/telemetry/` knows of prom-client or OpenTelemetry.
 *
 * - **Metrics.** A module declares its instruments once, at load, by name,
 *   help and the names of its labels (`counter`, `histogram`, `gauge`); the
 *   values it gives a label come from closed sets the code names (a route
 *   template, a status class, a refusal code, an adapter), never from a
 *   request's values. Until a sink is installed (`installMetrics`, by the
 *   service's start when metrics are on) every instrument is a call to an
 *   empty function: the hot path pays a call, and allocates nothing.
 * - **Traces.** `tracing.span` runs a unit of work inside a span, child of
 *   the span active where it is called (or of a context carried from
 *   elsewhere, `parent`); `tracing.carried` is the active span's context as
 *   a W3C `traceparent`, for work a later turn or another process does on its
 *   behalf (an outbox intent carries it). Until a tracer is installed
 *   (`installTracing`), `span` runs the work and nothing else.
 *
 * One process has one sink and one tracer, as it has one event loop: the
 * instruments are module-level, like the loggers and the OpenTelemetry API
 * they stand in for.
 */

/** A label's values, by label name. */
export type Labels<L extends string> = Readonly<Record<L, string>>;

export interface MetricSpec<L extends string> {
  /** Prometheus conventions: `legalwork_<what>_<unit>`, counters ending `_total`. */
  name: string;
  help: string;
  labelNames?: readonly L[];
}

export interface HistogramSpec<L extends string> extends MetricSpec<L> {
  /** Upper bounds of the buckets, in the metric's unit. */
  buckets: readonly number[];
}

export interface GaugeSpec extends MetricSpec<never> {
  /**
   * How the values of several sources add up, in a process (several
   * supervisors in one test process) and across the processes of
   * `serve --processes N`: a count each holds a share of sums (resident
   * actors, pending intents); an age takes the largest.
   */
  aggregate: 'sum' | 'max';
}

/** What a metrics library implements: an instrument's recording function, made once per declared instrument. */
export interface MetricsSink {
  counter<L extends string>(spec: MetricSpec<L>): (labels: Labels<L> | undefined, value: number) => void;
  histogram<L extends string>(spec: HistogramSpec<L>): (value: number, labels: Labels<L> | undefined) => void;
  /** `read` is asked at each scrape. */
  gauge(spec: GaugeSpec, read: () => number): void;
}

export interface Counter<L extends string = never> {
  inc(labels?: Labels<L>, value?: number): void;
}

export interface Histogram<L extends string = never> {
  observe(value: number, labels?: Labels<L>): void;
}

export interface Gauge {
  /** Adds a source of the gauge's value (read at each scrape); the function returned removes it. */
  track(read: () => number): () => void;
}

const ignore = () => undefined;

interface Bindable {
  bind(sink: MetricsSink): void;
}

/** Every instrument declared, to be bound to the sink once one is installed. */
const declared: Bindable[] = [];
let installedSink: MetricsSink | null = null;

function declare<T extends Bindable>(instrument: T): T {
  declared.push(instrument);
  if (installedSink) instrument.bind(installedSink);
  return instrument;
}

class CounterInstrument<L extends string> implements Counter<L>, Bindable {
  private record: (labels: Labels<L> | undefined, value: number) => void = ignore;
  constructor(private readonly spec: MetricSpec<L>) {}
  inc(labels?: Labels<L>, value = 1): void {
    this.record(labels, value);
  }
  bind(sink: MetricsSink): void {
    this.record = sink.counter(this.spec);
  }
}

class HistogramInstrument<L extends string> implements Histogram<L>, Bindable {
  private record: (value: number, labels: Labels<L> | undefined) => void = ignore;
  constructor(private readonly spec: HistogramSpec<L>) {}
  observe(value: number, labels?: Labels<L>): void {
    this.record(value, labels);
  }
  bind(sink: MetricsSink): void {
    this.record = sink.histogram(this.spec);
  }
}

class GaugeInstrument implements Gauge, Bindable {
  private readonly sources = new Set<() => number>();
  constructor(private readonly spec: GaugeSpec) {}
  track(read: () => number): () => void {
    // Nobody reads a gauge before a sink is installed: a source is kept only then, so tests that build many apps hold none.
    if (!installedSink) return ignore;
    this.sources.add(read);
    return () => this.sources.delete(read);
  }
  bind(sink: MetricsSink): void {
    const sum = this.spec.aggregate === 'sum';
    sink.gauge(this.spec, () => {
      let value = 0;
      for (const read of this.sources) value = sum ? value + read() : Math.max(value, read());
      return value;
    });
  }
}

export const counter = <L extends string = never>(spec: MetricSpec<L>): Counter<L> => declare(new CounterInstrument(spec));
export const histogram = <L extends string = never>(spec: HistogramSpec<L>): Histogram<L> => declare(new HistogramInstrument(spec));
export const gauge = (spec: GaugeSpec): Gauge => declare(new GaugeInstrument(spec));

/** Binds every instrument, declared already or later, to `sink`. Once per process. */
export function installMetrics(sink: MetricsSink): void {
  if (installedSink) throw new Error('a metrics sink is installed already: one per process');
  installedSink = sink;
  for (const instrument of declared) instrument.bind(sink);
}

/** Whether a sink records the instruments: a caller that would compute something only for them asks first. */
export const metricsOn = (): boolean => installedSink !== null;

/** Seconds since `startedMs` (a `performance.now()`): a duration as histograms take it. */
export const secondsSince = (startedMs: number): number => (performance.now() - startedMs) / 1000;

/** The status class of an HTTP status, a closed set. */
export function statusClass(status: number): string {
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  if (status >= 300) return '3xx';
  if (status >= 200) return '2xx';
  return '1xx';
}

// Traces.

/**
 * Every attribute a span of the service may carry, named here so a new one is
 * a choice made in this file: each one's values come from a closed set (a
 * machine, an effect, an outcome, a method), or are sizes and statuses; never
 * an id, a key, a name or an address a caller gave.
 */
export type SpanAttributeName =
  | 'db.system.name'
  | 'db.operation.name'
  | 'db.collection.name'
  | 'http.request.method'
  | 'http.response.status_code'
  | 'legalwork.effect'
  | 'legalwork.entity.kind'
  | 'legalwork.journal.events'
  | 'legalwork.outcome'
  | 'legalwork.refusal.code'
  | 'legalwork.webhook.attempt'
  | 'legalwork.webhook.event_type';

type AttributeValue = string | number | boolean;

/**
 * What an attribute may be given: a number or a flag (a size, a status), or a
 * string whose type is a set the code names (a literal union: a machine, an
 * effect, an outcome). A string typed `string` (an id, a key, a name a
 * caller gave) is refused by the compiler: a value from an open set has no
 * way onto a span.
 */
export type ClosedValue<V> = V extends string ? (string extends V ? never : V) : V extends number | boolean ? V : never;

/** Span attributes, by the names above, each value of a closed set. */
export type SpanAttributes<A extends Partial<Record<SpanAttributeName, AttributeValue>> = Partial<Record<SpanAttributeName, AttributeValue>>> = { readonly [K in keyof A]: ClosedValue<A[K]> };

/** The span a unit of work runs in: what it learns along the way is set on it. */
export interface ActiveSpan {
  set<V extends AttributeValue>(key: SpanAttributeName, value: ClosedValue<V>): void;
  /** The work failed (an error, or an outcome that is one for an operator: a 5xx, a failed delivery). */
  fail(reason: string): void;
}

export interface SpanOptions {
  /** OpenTelemetry's span kind; `internal` unless said. */
  kind?: 'internal' | 'client' | 'server' | 'producer' | 'consumer';
  /** A W3C `traceparent` carried from the work that asked for this (an intent's): the span is its child. */
  parent?: string;
}

export interface Tracer {
  span<T, const A extends Partial<Record<SpanAttributeName, AttributeValue>>>(name: string, attributes: A & SpanAttributes<A>, work: (span: ActiveSpan) => Promise<T>, options?: SpanOptions): Promise<T>;
  /** The active span's context as a W3C `traceparent`, when a sampled span is active. */
  carried(): string | undefined;
}

const idleSpan: ActiveSpan = { set: ignore, fail: ignore };

const untraced: Tracer = {
  span: (_name, _attributes, work) => work(idleSpan),
  carried: () => undefined,
};

let installedTracer: Tracer = untraced;

/** The process's tracer: the one installed, or one that runs the work and records nothing. */
export const tracing: Tracer = {
  span: (name, attributes, work, options) => installedTracer.span(name, attributes, work, options),
  carried: () => installedTracer.carried(),
};

export function installTracing(tracer: Tracer): void {
  installedTracer = tracer;
}

/** Whether spans are recorded: a caller that would build attributes only for a span asks first. */
export const tracingOn = (): boolean => installedTracer !== untraced;
