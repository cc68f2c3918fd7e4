// The slice of autocannon's API the benchmarks use (the package ships no types).
declare module 'autocannon' {
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
    p99_9: number;
    total?: number;
  }
  export interface RequestSpec {
    method?: string;
    path?: string;
    body?: string | Buffer;
    headers?: Record<string, string>;
    setupRequest?: (request: RequestSpec, context: Record<string, unknown>) => RequestSpec | null | undefined;
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
  }
  export interface Options {
    url: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    method?: string;
    body?: string;
    headers?: Record<string, string>;
    requests?: RequestSpec[];
    excludeErrorStats?: boolean;
    title?: string;
  }
  export interface Result {
    title?: string;
    requests: Histogram & { sent: number; total: number };
    latency: Histogram;
    throughput: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    '4xx': number;
    '5xx': number;
    statusCodeStats: Record<string, { count: number }>;
    start: Date;
    finish: Date;
  }
  /** An EventEmitter that is also thenable; `stop()` ends the run early. */
  export interface Instance extends PromiseLike<Result> {
    stop(): void;
    /** Emitted for every answer received. */
    on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): this;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}
