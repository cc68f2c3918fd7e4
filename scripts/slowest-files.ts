/**
 * A vitest reporter that ends every run with the 15 slowest test files:
 * where `npm test`'s minutes go, printed where the next change will see it
 * (issue 44). A file's time is what its worker spent on it: preparing the
 * runner, importing the file and its modules, then its tests and hooks.
 * Beside it, the CPU the file took, its children included
 * (test/setup/cpu-meter.ts): on shared cores the wall time swells with
 * whatever runs beside a file, its CPU time much less.
 */
import type { Reporter, TestModule, Vitest } from 'vitest/node';

/** How many are shown: 15, or `SLOWEST_FILES` of them. */
const SHOWN = Number(process.env.SLOWEST_FILES) || 15;

export default class SlowestFiles implements Reporter {
  private vitest?: Vitest;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows = modules.map((m) => {
      const d = m.diagnostic();
      return { file: m.relativeModuleId, project: m.project.name, ms: d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration, cpuMs: m.meta().cpuMs };
    });
    if (rows.length === 0) return;
    rows.sort((a, b) => b.ms - a.ms);
    const total = rows.reduce((sum, r) => sum + r.ms, 0);
    const cpu = rows.reduce((sum, r) => sum + (r.cpuMs ?? 0), 0);
    const seconds = (ms: number | undefined) => (ms === undefined ? '     –' : (ms / 1000).toFixed(1).padStart(6));
    const log = (line: string) => (this.vitest ? this.vitest.logger.log(line) : console.log(line));
    log(`\nThe ${Math.min(SHOWN, rows.length)} slowest of ${rows.length} test files (${(total / 1000).toFixed(0)} s of worker time, ${(cpu / 1000).toFixed(0)} CPU-seconds in all):`);
    log('    time    CPU');
    for (const r of rows.slice(0, SHOWN)) log(`  ${seconds(r.ms)} ${seconds(r.cpuMs)}  ${r.file}${r.project ? `  [${r.project}]` : ''}`);
  }
}
