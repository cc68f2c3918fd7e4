/**
 * A V8 `.cpuprofile` (what `node --cpu-prof` writes) summarized as its top
 * frames by self time: the samples whose leaf is that frame. Nodes are
 * aggregated by function name and location (url:line), so one function reached
 * along many call paths is one row. Self time = its samples × the mean sample
 * interval. With a window (µs on the profile's clock, the monotonic clock that
 * `process.hrtime` reads too) only the samples taken inside it count.
 */
import { relative } from 'node:path';
import { ROOT } from './service.ts';

export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number; children?: number[] }>;
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface FrameRow {
  frame: string;
  /** Shortened: repo-relative, or `<package>/<file>` under node_modules, or `node:…`; `:line` 1-based. */
  location: string;
  samples: number;
  /** Share of all samples counted (idle and GC included). */
  share: number;
  ms: number;
}

export interface ProfileSummary {
  rows: FrameRow[];
  samples: number;
  /** Milliseconds the counted samples span, and the mean interval between samples (µs). */
  ms: number;
  intervalUs: number;
}

/** A script url, shortened for a table. */
export function shortPath(url: string): string {
  if (!url) return '';
  const path = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url;
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return path.slice(nm + '/node_modules/'.length);
  if (!path.startsWith('/')) return path;
  // The service runs from its esbuild bundle, dist/<source digest>/: the digest says nothing here.
  return relative(ROOT, path).replace(/^dist\/[0-9a-f]{16}\//, 'dist/');
}

export function topSelfFrames(profile: CpuProfile, top = 15, window?: { fromUs: number; toUs: number }): ProfileSummary {
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const hits = new Map<number, number>();
  let t = profile.startTime;
  let first = Infinity;
  let last = -Infinity;
  let counted = 0;
  for (let i = 0; i < samples.length; i++) {
    t += deltas[i] ?? 0;
    if (window && (t < window.fromUs || t > window.toUs)) continue;
    hits.set(samples[i], (hits.get(samples[i]) ?? 0) + 1);
    first = Math.min(first, t);
    last = Math.max(last, t);
    counted++;
  }
  const intervalUs = counted > 1 ? (last - first) / (counted - 1) : 0;
  const byFrame = new Map<string, FrameRow>();
  for (const node of profile.nodes) {
    const n = hits.get(node.id);
    if (!n) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const location = url ? `${shortPath(url)}:${lineNumber + 1}` : '';
    const frame = functionName || '(anonymous)';
    const key = `${frame}\0${location}`;
    const row = byFrame.get(key) ?? { frame, location, samples: 0, share: 0, ms: 0 };
    row.samples += n;
    byFrame.set(key, row);
  }
  const rows = [...byFrame.values()].sort((a, b) => b.samples - a.samples).slice(0, top);
  for (const row of rows) {
    row.share = row.samples / Math.max(1, counted);
    row.ms = (row.samples * intervalUs) / 1000;
  }
  return { rows, samples: counted, ms: counted > 1 ? (last - first) / 1000 : 0, intervalUs };
}

export interface LongTask {
  /** µs on the profile's clock (CLOCK_MONOTONIC, as `process.hrtime` reads it) where it began. */
  atUs: number;
  ms: number;
  /** The longest gap between two of its samples: the process not scheduled (the sampler stops with it). */
  longestGapMs: number;
  /** The call path every one of its JS samples shares, outermost first: where a single long task spent its time. */
  shared: string[];
  /** Its top frames by self time, as "name location (samples)". */
  self: string[];
}

/**
 * Candidate long tasks: the runs of samples over `thresholdMs` that stay
 * under one frame the loop called (the same node just under the root: a
 * timer, a socket's callback, the microtask queue), the collector's and
 * native samples in between allowed. Two tasks of the same entry with no
 * sample between them read as one run, so each run also says the call path
 * all its JS samples share: a real long task shares a deep one (the function
 * that held the loop), two merged tasks only their entry.
 */
export function longTasks(profile: CpuProfile, thresholdMs = 50): LongTask[] {
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (id: number) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    return `${functionName || '(anonymous)'}${url ? ` ${shortPath(url)}:${lineNumber + 1}` : ''}`;
  };
  const pathOf = (id: number) => {
    const path: number[] = [];
    for (let at: number | undefined = id; at !== undefined && parent.get(at) !== undefined; at = parent.get(at)) path.unshift(at);
    return path;
  };
  const NOT_JS = new Set(['(garbage collector)', '(program)']);
  const tasks: LongTask[] = [];
  let t = profile.startTime;
  let run: { start: number; last: number; entry: number; gap: number; ids: number[] } | null = null;
  const close = () => {
    if (!run || (run.last - run.start) / 1000 <= thresholdMs) return;
    const paths = run.ids.filter((id) => !NOT_JS.has(byId.get(id)!.callFrame.functionName)).map(pathOf);
    let shared = paths[0] ?? [];
    for (const p of paths) {
      let i = 0;
      while (i < shared.length && shared[i] === p[i]) i++;
      shared = shared.slice(0, i);
    }
    const self = new Map<string, number>();
    for (const id of run.ids) self.set(label(id), (self.get(label(id)) ?? 0) + 1);
    tasks.push({ atUs: run.start, ms: (run.last - run.start) / 1000, longestGapMs: run.gap / 1000, shared: shared.map(label), self: [...self].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([k, v]) => `${k} (${v})`) });
  };
  for (let i = 0; i < samples.length; i++) {
    t += deltas[i] ?? 0;
    const id = samples[i];
    const name = byId.get(id)?.callFrame.functionName ?? '';
    if (name === '(idle)' || name === '(root)') {
      close();
      run = null;
      continue;
    }
    if (run && NOT_JS.has(name)) {
      run.gap = Math.max(run.gap, t - run.last);
      run.last = t;
      run.ids.push(id);
      continue;
    }
    const entry = pathOf(id)[0];
    if (run && entry === run.entry) {
      run.gap = Math.max(run.gap, t - run.last);
      run.last = t;
      run.ids.push(id);
      continue;
    }
    close();
    run = NOT_JS.has(name) ? null : { start: t, last: t, entry, gap: 0, ids: [id] };
  }
  close();
  return tasks;
}
