/** Order statistics for the benchmarks' own timings. */

/** The q-quantile (0 to 1) of a sample, by nearest rank at or below: quantile(xs, 0.5) is the median. */
export function quantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
