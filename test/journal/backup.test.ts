/**
 * `legalwork journal backup|restore|vacuum` on the embedded journal
 * (journal/sqlite-backup.ts), run as an operator runs them (the real
 * command, a process of its own) beside a service under write load: the
 * backup holds every write acknowledged before it began, a restore refuses
 * a journal in use and a copy that does not check out, and the service
 * starts on what it restored. (The PostgreSQL journal's procedure, pg_dump
 * and pg_restore, is tested in postgres-backup.test.ts.)
 */
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/compose.ts';
import { Database } from '../../src/journal/sqlite-driver.ts';
import { checkJournal } from '../../src/journal/sqlite-backup.ts';
import { SqliteJournal } from '../../src/journal/sqlite.ts';
import { call, tempDir } from '../helpers/app.ts';
import { runCli } from '../helpers/cli.ts';
import { until } from '../helpers/wait.ts';

const dirs: string[] = [];
const dir = () => {
  const made = tempDir();
  dirs.push(made);
  return made;
};
afterAll(() => {
  for (const made of dirs) rmSync(made, { recursive: true, force: true });
});

async function serviceOn(data: string) {
  const journal = new SqliteJournal(data);
  const app = await createApp({ journal });
  app.addHook('onClose', async () => journal.close());
  await app.ready();
  return app;
}

/** Every event row of a journal file, in order. */
function eventsOf(file: string): unknown[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT * FROM events ORDER BY grain, seq').raw().all();
  } finally {
    db.close();
  }
}

const MATTER = { matterType: 'patent_provisional', client: { name: 'Ada Inventor' } };

describe('a backup of the embedded journal, and its restore', () => {
  const data = dir();
  const backups = dir();
  const backup = join(backups, 'journal-backup.db');
  let ws = '';
  let ackedBefore: Array<{ id: string; version: number }> = [];

  it('takes a consistent copy while the service writes, holding every write acknowledged before it began', async () => {
    const app = await serviceOn(data);
    ws = `/workspaces/${(await call(app, 'POST', '/workspaces')).body.workspace.id}`;
    const acked: Array<{ id: string; version: number }> = [];
    let stop = false;
    const writers = Array.from({ length: 4 }, async () => {
      while (!stop) {
        const opened = await call(app, 'POST', `${ws}/matters`, MATTER);
        if (opened.status !== 201) throw new Error(`the load was refused: ${opened.raw}`);
        const advanced = await call(app, 'POST', `${ws}/matters/${opened.body.matter.id}/advance`);
        acked.push({ id: opened.body.matter.id, version: advanced.body.matter.version });
      }
    });
    await until(() => acked.length >= 40, 'the load under way');
    ackedBefore = [...acked];
    const run = await runCli(['journal', 'backup', backup, '--data', data]);
    const ackedDuring = acked.length - ackedBefore.length;
    stop = true;
    await Promise.all(writers);

    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toMatchObject({ backup });
    expect(run.json.events).toBeGreaterThan(ackedBefore.length * 3);
    // The service served throughout: writes were acknowledged while the copy was taken.
    expect(ackedDuring).toBeGreaterThan(0);
    expect(checkJournal(backup).problems).toEqual([]);

    // It never overwrites a file.
    const again = await runCli(['journal', 'backup', backup, '--data', data]);
    expect(again.code).toBe(1);
    expect(again.json).toMatchObject({ code: 'BACKUP_FAILED' });

    // A journal in use is never overwritten: the restore refuses, and the service goes on.
    const refused = await runCli(['journal', 'restore', backup, '--data', data]);
    expect(refused.code).toBe(1);
    expect(refused.json).toMatchObject({ code: 'JOURNAL_IN_USE' });
    expect(refused.json.fix).toMatch(/stop the service/);
    expect(readdirSync(data).filter((f) => /replaced|restoring/.test(f))).toEqual([]);
    expect((await call(app, 'POST', `${ws}/matters`, MATTER)).status).toBe(201);
    await app.close();
  });

  it('restores onto a new disk, and the service starts on it with every acknowledged write', async () => {
    const lost = dir();
    const run = await runCli(['journal', 'restore', backup, '--data', lost]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toMatchObject({ restored: join(lost, 'journal.db'), replaced: null });
    const app = await serviceOn(lost);
    for (const { id, version } of ackedBefore) {
      const read = await call(app, 'GET', `${ws}/matters/${id}`);
      expect(read.status).toBe(200);
      expect(read.body.matter.version).toBeGreaterThanOrEqual(version);
    }
    // It serves, and writes.
    expect((await call(app, 'POST', `${ws}/matters`, MATTER)).status).toBe(201);
    await app.close();
  });

  it('restores over a stopped journal, keeping the one it replaces beside it', async () => {
    const run = await runCli(['journal', 'restore', backup, '--data', data]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.replaced).toMatch(/journal\.db\.replaced-/);
    expect(existsSync(run.json.replaced)).toBe(true);
    expect(readdirSync(data).filter((f) => f.endsWith('-wal') || f.endsWith('-shm'))).toEqual([]);
    const app = await serviceOn(data);
    expect((await call(app, 'GET', `${ws}/matters/${ackedBefore[0].id}`)).status).toBe(200);
    await app.close();
  });

  it('refuses a copy that does not check out, and replaces nothing', async () => {
    const target = dir();
    copyFileSync(backup, join(target, 'journal.db'));
    const before = eventsOf(join(target, 'journal.db'));

    // An event gone from the start of a stream, and from the middle of its grain.
    const damaged = join(backups, 'damaged.db');
    copyFileSync(backup, damaged);
    const db = new Database(damaged);
    db.exec('DROP TRIGGER events_no_delete');
    db.prepare('DELETE FROM events WHERE (grain, seq) IN (SELECT grain, seq FROM events WHERE version = 1 AND stream IN (SELECT stream FROM events WHERE version = 2) LIMIT 1)').run();
    db.close();
    const missing = await runCli(['journal', 'restore', damaged, '--data', target]);
    expect(missing.code).toBe(1);
    expect(missing.json).toMatchObject({ code: 'RESTORE_CHECK_FAILED' });
    expect(missing.json.problems.join('\n')).toMatch(/versions are missing/);
    expect(missing.json.problems.join('\n')).toMatch(/seqs are missing/);

    // Bytes that are no database, and torn pages.
    const garbage = join(backups, 'garbage.db');
    writeFileSync(garbage, 'not a journal at all');
    const torn = join(backups, 'torn.db');
    const bytes = readFileSync(backup);
    bytes.fill(0x5a, Math.floor(bytes.length / 4), Math.floor((bytes.length * 3) / 4));
    writeFileSync(torn, bytes);
    for (const file of [garbage, torn, join(backups, 'absent.db')]) {
      const run = await runCli(['journal', 'restore', file, '--data', target]);
      expect(run.code, file).toBe(1);
      expect(run.json, file).toMatchObject({ code: 'RESTORE_CHECK_FAILED' });
    }
    expect(eventsOf(join(target, 'journal.db'))).toEqual(before);
    expect(readdirSync(target).filter((f) => /replaced|restoring/.test(f))).toEqual([]);
  });

  it('vacuums a stopped journal an earlier build made, and refuses one in use', async () => {
    const old = dir();
    const db = new Database(join(old, 'journal.db'));
    db.exec("CREATE TABLE events (grain TEXT, seq INTEGER, stream TEXT, version INTEGER, at TEXT, kind TEXT, actor TEXT, body TEXT, PRIMARY KEY (grain, seq)) WITHOUT ROWID");
    const insert = db.prepare("INSERT INTO events VALUES ('g', ?, ?, 1, 'a', 'k', NULL, ?)");
    db.transaction(() => {
      for (let i = 1; i <= 2000; i++) insert.run(i, `s${i}`, 'x'.repeat(500));
    })();
    db.exec("DELETE FROM events WHERE seq > 100");
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(0);
    db.close();
    const app = await serviceOn(old);
    const busy = await runCli(['journal', 'vacuum', '--data', old]);
    expect(busy.json).toMatchObject({ code: 'JOURNAL_IN_USE' });
    await app.close();
    const run = await runCli(['journal', 'vacuum', '--data', old]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.bytesAfter).toBeLessThan(run.json.bytesBefore / 2);
    const after = new Database(join(old, 'journal.db'), { readonly: true });
    expect(after.pragma('auto_vacuum', { simple: true })).toBe(2);
    after.close();
  });

  it('points a PostgreSQL journal to its own tools', async () => {
    const run = await runCli(['journal', 'backup', join(backups, 'pg.db')], { env: { LEGALWORK_DATABASE_URL: 'postgres://127.0.0.1/none' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/pg_dump/);
  });
});
