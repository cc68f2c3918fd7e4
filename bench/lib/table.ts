/** Plain-text tables for the benchmark's figures: what `npm run bench` prints. */
import type { Figures } from './load.ts';

export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

export const num = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
export const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 1)} ms`;
export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
export const us = (n: number) => (Number.isFinite(n) ? `${n.toFixed(0)} µs` : '-');
export const pct = (r: number) => `${(r * 100).toFixed(0)}%`;

/** A measured door beside its bare-Fastify twin. */
export interface Pair {
  door: Figures;
  bare: Figures;
}

/** Each door, then its twin indented under it (`label` before the twin's title), with the door's ratio to the twin (`vs`). */
export function pairTable(pairs: Pair[], vs = 'vs bare', label = 'bare: '): string[] {
  const rows: string[][] = [];
  for (const { door, bare } of pairs) {
    rows.push([door.title, num(door.rps), ms(door.p50), ms(door.p99), pct(door.rps / bare.rps), us(door.cpuUs), us(door.loopUs), num(door.ok), num(door.non2xx)]);
    rows.push([`  ${label}${bare.title}`, num(bare.rps), ms(bare.p50), ms(bare.p99), '', us(bare.cpuUs), us(bare.loopUs), num(bare.ok), num(bare.non2xx)]);
  }
  return table(['door (50 connections)', 'req/s (2xx)', 'p50', 'p99', vs, 'CPU/req', 'loop/req', '2xx', 'non-2xx'], rows);
}

/** "target: met/MISSED" wording for a figure against its target. */
export const verdict = (met: boolean) => (met ? 'met' : 'MISSED');

/**
 * Doors each against one yardstick row of the same run (the bare GET, the
 * durable-append route), the yardstick printed once after them: req/s, p50,
 * p99, the ratio, CPU/req and loop/req of each.
 */
export function yardstickTable(doors: Figures[], yardstick: Figures, vs: string): string[] {
  const row = (f: Figures, ratio: string) => [f.title, num(f.rps), ms(f.p50), ms(f.p99), ratio, us(f.cpuUs), us(f.loopUs), num(f.ok), num(f.non2xx)];
  return table(
    ['door (50 connections)', 'req/s (2xx)', 'p50', 'p99', vs, 'CPU/req', 'loop/req', '2xx', 'non-2xx'],
    [...doors.map((f) => row(f, pct(f.rps / yardstick.rps))), row(yardstick, '100%')],
  );
}

/** One note per run that answered anything but a 2xx or lost connections: its statuses and its connection errors (nothing for a clean run). */
export function statusNotes(figures: Figures[]): string[] {
  return figures.filter((f) => f.non2xx || f.errors).map((f) => `note: ${f.title} answered ${JSON.stringify(f.statuses)} with ${f.errors} connection errors`);
}
