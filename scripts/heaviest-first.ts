/**
 * The order `npm test` starts its files in: the ones known to take longest
 * first, then vitest's own order (the longest of the last run first, from its
 * cache; on a clean clone, which has none, the largest files). A model test
 * is a few lines that walk thousands of paths, so by size it would start
 * last, and the run would end waiting on it with the other workers idle.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Each the longest of a run on this machine (issue 44), longest first. */
const HEAVIEST = [
  'test/model/deadline-ladder.model.test.ts',
  'test/browser.inspector.test.ts',
  'test/model/matter.model.test.ts',
  'test/cli.test.ts',
  'test/scale-out.test.ts',
  'test/browser.population.test.ts',
  'test/inspection.prop.test.ts',
  'test/contract-lint.test.ts',
  'test/keys.scale-out.test.ts',
  'test/journal/store.test.ts',
];

export default class HeaviestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = HEAVIEST.indexOf(relative(file.project.config.root, file.moduleId));
      return at < 0 ? HEAVIEST.length : at;
    };
    // Array.prototype.sort is stable: past the heaviest, vitest's order stands.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
