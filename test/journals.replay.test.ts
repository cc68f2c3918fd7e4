/**
 * Stored journals replayed through today's machines (issue 17; the policy is
 * docs/versioning.md). Every stream of every file under `test/journals/`
 * (recorded once per machine version by `npm run journals:record`) is folded
 * the way the service loads an entity (`Supervisor.load` → `Entity`: the
 * machine and version that opened it are checked, then every recorded cause
 * must still yield its recorded fact), and what is derived from it (status,
 * stage, machine context, the Matter view; the ladder view; the enrollment
 * and roster rows) must equal what was recorded. A machine change that
 * re-interprets history fails here, naming the file, the stream and the
 * first field that differs.
 */
import { enqueueActions } from 'xstate';
import { describe, expect, it } from 'vitest';
import { matterMachine } from '../machines/matter.ts';
import { MATTER } from '../src/engine/matters.ts';
import { LADDER } from '../src/engine/ladders.ts';
import { ENROLLMENT } from '../src/engine/firms.ts';
import { Entity } from '../src/engine/entity.ts';
import { call, testApp, workspace } from './helpers/app.ts';
import { fileNameOf, RECORDED_MACHINES, replayStreams, storedJournalFiles, type JournalFile, type RecordedStream } from './helpers/journals.ts';

const files = storedJournalFiles();
const byMachine = (machine: string) => files.find((f) => f.header.machine === machine && f.header.version === RECORDED_MACHINES[machine].definition.version);

const SHOWN = 10;
const report = (failures: string[]) => (failures.length ? `${failures.length} streams no longer fold as recorded:\n${failures.slice(0, SHOWN).join('\n')}${failures.length > SHOWN ? `\n… and ${failures.length - SHOWN} more` : ''}` : '');

describe('stored journals replayed through today\'s machines', () => {
  it('every machine version in use has its recorded journals', () => {
    for (const definition of [MATTER, LADDER, ENROLLMENT]) {
      expect(byMachine(definition.machine.id), `test/journals/${fileNameOf(definition)} is missing: record it with npm run journals:record`).toBeDefined();
    }
  });

  for (const file of files) {
    it(`${file.name}: every stream folds to the state recorded for it`, async () => {
      const machine = RECORDED_MACHINES[file.header.machine];
      expect(machine, `${file.name} names machine ${file.header.machine}, which no definition here reads`).toBeDefined();
      for (const s of file.streams) {
        // A file holds one machine version: each stream's opening cause says the same.
        const tag = (s.journal[0]?.cause as { machine?: string } | undefined)?.machine ?? `${file.header.machine}@1`;
        expect(tag, `${file.name}: stream ${s.stream} was opened by ${tag}, the header says ${file.header.tag}`).toBe(file.header.tag);
      }
      const { replayed, failures } = await replayStreams(file.name, machine, file.streams);
      console.log(`${file.header.tag}: ${replayed} streams replayed, ${replayed - failures.length} as recorded`);
      expect(failures, report(failures)).toEqual([]);
      expect(replayed).toBe(file.header.paths);
    }, 120_000);
  }
});

/**
 * A snapshot row is what a fold of its stream's first `version` events
 * reaches; resuming from it and folding the rest must reach what the whole
 * fold does, from any version (issue 25). Each stored stream is resumed from
 * its opening, from its head, and from a version in between that moves
 * from stream to stream.
 */
describe('resuming a stored stream from a snapshot at any version reaches the state of the whole fold', () => {
  for (const file of files) {
    it(file.name, () => {
      const { definition } = RECORDED_MACHINES[file.header.machine];
      let resumed = 0;
      file.streams.forEach((s, i) => {
        const whole = new Entity(definition, structuredClone(s.journal));
        expect(whole.resumedAt).toBe(0);
        for (const version of new Set([1, 1 + (i % s.journal.length), s.journal.length])) {
          const prefix = new Entity(definition, structuredClone(s.journal.slice(0, version)));
          const entity = new Entity(definition, structuredClone(s.journal), { version, ...prefix.persisted() });
          expect(entity.resumedAt, `${s.stream} from version ${version}`).toBe(version);
          expect(definition.machine.getPersistedSnapshot(entity.snapshot()), `${s.stream} from version ${version}`).toEqual(definition.machine.getPersistedSnapshot(whole.snapshot()));
          resumed++;
        }
      });
      console.log(`${file.header.tag}: ${file.streams.length} streams resumed from ${resumed} snapshots, each as the whole fold`);
    }, 120_000);
  }
});

/** The test can fail: tampered journals and changed machines are caught, each naming what differs. */
describe('a stored journal the code no longer reads as written fails the replay', () => {
  const matterFile = (): JournalFile => {
    const file = byMachine('matter');
    if (!file) throw new Error('no stored Matter journals');
    return file;
  };
  /** A stored stream that went through a Signer's attestation, copied so it can be tampered with. */
  const attested = (): RecordedStream => structuredClone(matterFile().streams.find((s) => (s.derived.context as { attestedActs: number }).attestedActs > 0)!);

  it('a tampered cause: the stream is refused as unreadable, naming its seq', async () => {
    const s = attested();
    const stage = s.journal.findIndex((e, i) => i > 0 && e.kind === 'stage' && e.by === 'gate');
    s.journal[stage].cause = { type: 'WITHDRAW', byClient: true };
    const { failures } = await replayStreams('tampered', RECORDED_MACHINES.matter, [s]);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain(`tampered: stream ${s.stream}`);
    expect(failures[0]).toContain(`at seq ${s.journal[stage].seq}`);
    expect(failures[0]).toMatch(/unreadable today/);
  });

  it('tampered data: the derived state differs, and the first differing field is named', async () => {
    const s = attested();
    (s.journal[0].data as { consumerPattern: string }).consumerPattern = 'B2H2A-tampered';
    const { failures } = await replayStreams('tampered', RECORDED_MACHINES.matter, [s]);
    expect(failures).toEqual([expect.stringContaining('the derived state differs first at view.consumerPattern: recorded "')]);
  });

  it('a machine that folds past events differently (same facts, another state) fails on every stream it re-interprets', async () => {
    // An attestation that stops counting towards attestedActs: every fact is journaled as before, so only the derived state can tell.
    const changed = matterMachine.provide({
      actions: {
        attest: enqueueActions(({ context, event, enqueue }) => {
          const e = event as { gigId: string; attestation: { signedBy: string }; receipt?: string };
          const act = context.pendingGig!.reservedAct;
          enqueue.assign({ pendingGig: null });
          enqueue.emit({ type: 'fact', kind: 'stage', verb: act, by: 'signer', actor: e.attestation.signedBy, note: `reserved act ${act} attested`, data: { gigId: e.gigId, act, attestation: e.attestation, receipt: e.receipt ?? null } } as never);
        }),
      },
    });
    const file = matterFile();
    const { replayed, failures } = await replayStreams(file.name, RECORDED_MACHINES.matter, file.streams, { ...MATTER, machine: changed as typeof matterMachine });
    const reinterpreted = file.streams.filter((s) => (s.derived.context as { attestedActs: number }).attestedActs > 0).length;
    expect(reinterpreted).toBeGreaterThan(0);
    expect(failures).toHaveLength(reinterpreted);
    expect(failures[0]).toMatch(new RegExp(`^${file.name.replace(/[.@]/g, '\\$&')}: stream \\S+ \\(path .+\\): the derived state differs first at context\\.attestedActs: recorded [1-9]`));
    expect(replayed).toBe(file.streams.length);
  });

  it('a stream written before versions were recorded (no machine in its opening cause) reads as version 1', async () => {
    const s = attested();
    delete (s.journal[0].cause as { machine?: string }).machine;
    expect(await replayStreams('unversioned', RECORDED_MACHINES.matter, [s])).toEqual({ replayed: 1, failures: [] });
  });

  it('a stream a later version opened is refused, never folded by this one', async () => {
    const s = attested();
    (s.journal[0].cause as { machine: string }).machine = 'matter@2';
    const { failures } = await replayStreams('later', RECORDED_MACHINES.matter, [s]);
    expect(failures).toEqual([expect.stringContaining(`at seq ${s.journal[0].seq} the machine that opened it is matter@2, and this code folds only matter@1`)]);
  });

  it('a new machine version does not silently fold streams an earlier version recorded: they are refused until it reads them', async () => {
    const s = attested();
    const { failures } = await replayStreams('matter@1', RECORDED_MACHINES.matter, [s], { ...MATTER, version: 2 });
    expect(failures).toEqual([expect.stringContaining('the machine that opened it is matter@1, and this code folds only matter@2')]);
  });
});

describe('the service refuses a stream a machine version it does not know opened', () => {
  it('answers ENTITY_UNREADABLE for that Matter alone, naming the version, and serves its neighbour', async () => {
    const app = await testApp();
    try {
      const ws = await workspace(app);
      const opened = await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional' });
      expect(opened.status).toBe(201);
      const [first] = await app.services.journal.readStream(opened.body.matter.id);
      expect(first.cause).toMatchObject({ type: 'xstate.init', machine: `matter@${MATTER.version}` });
      // The same opening, as a later version would have written it.
      const future = `${opened.body.matter.id}_future`;
      const { grain, seq: _seq, stream: _stream, version: _version, ...event } = first;
      await app.services.journal.append(grain, [{ stream: future, expectedVersion: 0, events: [{ ...event, subject: future, cause: { ...first.cause, machine: `matter@${MATTER.version + 1}` } }] }]);
      const refused = await call(app, 'GET', `${ws}/matters/${future}`);
      expect(refused.status).toBe(500);
      expect(refused.body.code).toBe('ENTITY_UNREADABLE');
      expect(refused.body.error).toContain(`the machine that opened it is matter@${MATTER.version + 1}, and this code folds only matter@${MATTER.version}`);
      expect((await call(app, 'GET', `${ws}/matters/${opened.body.matter.id}`)).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
