/**
 * The model runner itself, on a toy machine and an in-memory "service": the
 * shortest paths end on every transition (self-loops and refusing edges
 * included), settled follow-ups reach the oracle, and a service that
 * disagrees with the machine is caught with the path that shows it.
 */
import { describe, expect, it } from 'vitest';
import { assign, setup, type SnapshotFrom } from 'xstate';
import { edgeIndex } from '../../machines/edges.ts';
import { modelPaths, runModel, type ModelAdapter, type TestApp } from './runner.ts';

type Ev = { type: 'GO' } | { type: 'PING' } | { type: 'STOP'; ok: boolean } | { type: 'AUTO' };

/** A door, a self-loop with an action, a guarded exit, a refusing override and an automatic follow-up. */
const toy = setup({ types: { context: {} as { pings: number }, events: {} as Ev } }).createMachine({
  id: 'toy',
  context: { pings: 0 },
  initial: 'live',
  states: {
    live: {
      initial: 'a',
      on: {
        PING: { actions: assign({ pings: ({ context }) => context.pings + 1 }) },
        STOP: { guard: ({ event }) => event.ok, target: 'stopped' },
      },
      states: {
        a: { on: { GO: 'b' } },
        b: { on: { AUTO: 'c' } },
        c: { on: { STOP: {} } },
      },
    },
    stopped: { type: 'final' },
  },
});
type Snap = SnapshotFrom<typeof toy>;

/** The "service": its own little state, reached only through `send`. */
interface Fake {
  state: string;
  pings: number;
}

function adapter(overrides: Partial<ModelAdapter<typeof toy, Fake>> = {}): ModelAdapter<typeof toy, Fake> {
  return {
    name: 'matter',
    machine: toy,
    variants: [{ name: 'only', input: undefined as never }],
    events: () => [{ type: 'GO' }, { type: 'PING' }, { type: 'STOP', ok: true }, { type: 'STOP', ok: false }, { type: 'AUTO' }],
    serializeState: (s: Snap) => JSON.stringify([s.value, Math.min(s.context.pings, 1)]),
    // The service moves b → c on its own, inside the GO request.
    settle: ({ event }) => (event.type === 'GO' ? [{ type: 'AUTO' }] : []),
    async open() {
      return { state: 'a', pings: 0 };
    },
    async send(_app, fake, event) {
      const live = fake.state !== 'stopped';
      let accepted = false;
      if (event.type === 'GO' && fake.state === 'a') (fake.state = 'c'), (accepted = true);
      else if (event.type === 'PING' && live) fake.pings++, (accepted = true);
      else if (event.type === 'STOP' && live && fake.state !== 'c' && event.ok) (fake.state = 'stopped'), (accepted = true);
      return { accepted, status: accepted ? 200 : 409, body: {} };
    },
    async check(_app, fake, expected) {
      const state = typeof expected.value === 'string' ? expected.value : (expected.value as { live: string }).live;
      if (fake.state !== state || fake.pings !== expected.context.pings) throw new Error(`service ${fake.state}/${fake.pings}, machine ${state}/${expected.context.pings}`);
    },
    ...overrides,
  };
}

const app = undefined as unknown as TestApp;

describe('runModel', () => {
  it('covers every edge of the graph on shortest paths, refusals and self-loops included', async () => {
    const result = await runModel(adapter(), app, { paths: 'shortest' });
    expect([...result.covered].sort()).toEqual([...edgeIndex(toy).keys].sort());
    expect(result.total).toBe(5);
    expect(result.paths).toBe(modelPaths(adapter(), adapter().variants[0], 'shortest').length);
  });

  it('replays every simple path', async () => {
    const result = await runModel(adapter(), app, { paths: 'simple' });
    expect(result.paths).toBeGreaterThan(1);
  });

  it('never offers a state the service cannot rest in (settled steps)', () => {
    for (const path of modelPaths(adapter(), adapter().variants[0], 'shortest')) expect(JSON.stringify(path.state.value)).not.toContain('"b"');
  });

  it('catches a service that accepts what the machine refuses, naming the path', async () => {
    const leaky = adapter({
      async send(_app, fake, event) {
        if (event.type === 'STOP' && fake.state === 'c') return { accepted: true, status: 200, body: {} };
        return adapter().send(_app, fake, event, undefined as never);
      },
    });
    await expect(runModel(leaky, app, { paths: 'shortest' })).rejects.toThrow(/\[model matter\/only\/shortest path .*GO.*the machine refuses it/);
  });

  it('catches a service whose view drifts from the machine', async () => {
    const drifting = adapter({
      async send(_app, fake, event) {
        const res = await adapter().send(_app, fake, event, undefined as never);
        if (event.type === 'PING' && res.accepted && fake.pings > 1) fake.pings = 1;
        return res;
      },
      serializeState: (s: Snap) => JSON.stringify([s.value, Math.min(s.context.pings, 2)]),
    });
    await expect(runModel(drifting, app, { paths: 'simple' })).rejects.toThrow(/service disagrees with the machine/);
  });

  it('catches a 5xx even when the machine refuses', async () => {
    const crashing = adapter({
      async send(_app, fake, event) {
        if (event.type === 'AUTO') return { accepted: false, status: 500, body: {} };
        return adapter().send(_app, fake, event, undefined as never);
      },
    });
    await expect(runModel(crashing, app, { paths: 'shortest' })).rejects.toThrow(/never a 5xx/);
  });
});
