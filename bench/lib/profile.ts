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
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }>;
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
