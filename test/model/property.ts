/**
 * The fast-check property every machine shares: random sequences of legal and
 * illegal events, sent through the HTTP doors, agree with the machine at every
 * step (2xx iff the machine accepts; the service's view equals the snapshot),
 * and a terminal is forever.
 *
 * Failures print their seed and shrink path; set FC_SEED (and FC_PATH) to
 * replay one, FC_RUNS to run more.
 */
import fc from 'fast-check';
import type { AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import type { TestApp } from '../helpers/app.ts';
import { oracleStep, Replay, type ModelAdapter, type Outcome } from './runner.ts';

export interface Invariants<M extends AnyStateMachine, H> {
  afterOpen?(replay: Replay<M, H>): Promise<void>;
  afterStep?(replay: Replay<M, H>, outcome: Outcome<M>, wasFinal: boolean): Promise<void>;
}

export interface PropertyOptions<M extends AnyStateMachine, H> {
  numRuns?: number;
  maxSteps?: number;
  /** Machine-specific invariants, fresh per run (they may keep what they saw). */
  invariants?: () => Invariants<M, H>;
}

/**
 * One choice per step. A uniform pick among offered events rarely walks deep
 * (terminal doors end a run early), so three steps in five prefer *progress*: a
 * legal event that moves the state without ending it.
 */
const choice = fc.record({ mode: fc.constantFrom('progress', 'progress', 'progress', 'legal', 'any'), pick: fc.nat({ max: 1_000 }) });

/** Runs a property with the replay controls and a printed seed on failure. */
export async function checkProperty<Ts>(name: string, property: fc.IAsyncProperty<Ts>, numRuns: number): Promise<void> {
  const seed = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : Date.now() ^ (Math.random() * 0x7fffffff);
  const params: fc.Parameters<Ts> = {
    numRuns: Number(process.env.FC_RUNS ?? numRuns),
    seed,
    ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}),
    endOnFailure: process.env.FC_SHRINK === undefined,
  };
  const out = await fc.check(property, params);
  if (out.failed) {
    const replay = `FC_SEED=${out.seed}${out.counterexamplePath ? ` FC_PATH=${out.counterexamplePath}` : ''}`;
    console.error(`[fast-check] ${name} failed; replay with ${replay} (FC_SHRINK=1 to shrink)`);
    throw new Error(`${name}: ${replay}\n${fc.defaultReportMessage(out) ?? ''}`);
  }
}

export async function agreesWithMachine<M extends AnyStateMachine, H>(adapter: ModelAdapter<M, H>, app: TestApp, options: PropertyOptions<M, H> = {}): Promise<void> {
  const property = fc.asyncProperty(fc.nat({ max: adapter.variants.length - 1 }), fc.array(choice, { minLength: 1, maxLength: options.maxSteps ?? 30 }), async (v, choices) => {
    const variant = adapter.variants[v];
    const invariants = options.invariants?.() ?? {};
    const replay = await new Replay(adapter, app, variant, `[property ${adapter.name}/${variant.name}]`).open();
    await invariants.afterOpen?.(replay);
    for (const c of choices) {
      const snap = replay.snapshot as AnyMachineSnapshot;
      const offered = adapter.events(replay.snapshot);
      const legal = offered.filter((e) => snap.can(e));
      const progress = legal.filter((e) => {
        const after = oracleStep(adapter, variant, replay.snapshot, e).after as AnyMachineSnapshot;
        return after.status !== 'done' && JSON.stringify(after.value) !== JSON.stringify(snap.value);
      });
      const pool = c.mode === 'progress' && progress.length ? progress : c.mode !== 'any' && legal.length ? legal : offered;
      if (!pool.length) break;
      const wasFinal = snap.status === 'done';
      const outcome = await replay.send(pool[c.pick % pool.length]);
      if (wasFinal && outcome.accepted) throw new Error(`${replay.label}: a terminal is forever, but an event was accepted after ${JSON.stringify(snap.value)}`);
      await invariants.afterStep?.(replay, outcome, wasFinal);
    }
  });
  await checkProperty(`${adapter.name} agrees with its machine through HTTP`, property, options.numRuns ?? 40);
}
