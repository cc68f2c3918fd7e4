/**
 * Transition coverage, as committed (`visualizations/<machine>.coverage.json`,
 * written by `npm run test:model`): it lists every transition of each machine
 * as the machine has it now, and no transition, refusing edges included, is
 * left unwalked by the model paths; a failure names the transitions. That the
 * file says what the paths really walk is held by the model tests themselves
 * (test/model/suite.ts compares each run's walks with it).
 */
import { describe, expect, it } from 'vitest';
import { edgeKey, edgeKind, machineEdges } from '../machines/edges.ts';
import { coveragePath, readCoverageFile } from '../src/diagrams/coverage.ts';
import { MACHINES } from '../src/diagrams/registry.ts';

describe.each(MACHINES.map((m) => [m.name, m] as const))('the %s coverage', (name, { machine }) => {
  const file = readCoverageFile(name);

  it(`is committed, and lists every transition of the machine in its order (after changing the machine, run \`npm run test:model -- ${name}\`)`, () => {
    expect(file, `${coveragePath(name)} is missing`).not.toBeNull();
    expect(file!.machine).toBe(name);
    expect(file!.transitions.map((t) => [t.key, t.kind])).toEqual(machineEdges(machine).map((e) => [edgeKey(e), edgeKind(e)]));
  });

  it('has no transition that no model path walks, refusing edges included', () => {
    const unwalked = file!.transitions.filter((t) => t.paths === 0).map((t) => `${t.key}${t.kind === 'refuses' ? ' (a refusing edge)' : ''}`);
    expect(unwalked, `${name}: transitions no model path walks`).toEqual([]);
  });

  it('adds up: each transition walked by its shortest and simple paths, the counts over them', () => {
    const t = file!.transitions;
    for (const x of t) expect(x.paths, x.key).toBe(x.shortest + x.simple);
    // The shortest paths end once on every transition, so each is walked by at least one of them.
    for (const x of t) expect(x.shortest, `${x.key}: no shortest path ends on it`).toBeGreaterThan(0);
    expect(file!.walked).toBe(t.filter((x) => x.paths > 0).length);
    expect(file!.total).toBe(t.length);
    expect(file!.refusing).toEqual({ walked: t.filter((x) => x.kind === 'refuses' && x.paths > 0).length, total: t.filter((x) => x.kind === 'refuses').length });
    for (const x of t) expect(x.shortest, x.key).toBeLessThanOrEqual(file!.paths.shortest);
  });
});
