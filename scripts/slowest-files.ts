/**
 * A vitest reporter that ends every run with the 15 slowest test files:
 * where `npm test`'s minutes go, printed where the next change will see it
 * (issue 44). A file's time is what its worker spent on it: preparing the
 * runner, importing the file and its modules, then its tests and hooks.
 */
import type { Reporter, TestModule, Vitest } from 'vitest/node';

const SHOWN = 15;

export default class SlowestFiles implements Reporter {
  private vitest?: Vitest;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows = modules.map((m) => {
      const d = m.diagnostic();
      return { file: m.relativeModuleId, project: m.project.name, ms: d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration };
    });
    if (rows.length === 0) return;
    rows.sort((a, b) => b.ms - a.ms);
    const total = rows.reduce((sum, r) => sum + r.ms, 0);
    const log = (line: string) => (this.vitest ? this.vitest.logger.log(line) : console.log(line));
    log(`\nThe ${Math.min(SHOWN, rows.length)} slowest of ${rows.length} test files (${(total / 1000).toFixed(0)} s of worker time in all):`);
    for (const r of rows.slice(0, SHOWN)) log(`  ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${r.file}${r.project ? `  [${r.project}]` : ''}`);
  }
}
