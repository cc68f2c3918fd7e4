/**
 * `legalwork journal backup|restore|vacuum`: the embedded journal's own
 * consistent copy, a checked restore, and giving a stopped journal's free
 * pages back (`src/journal/sqlite-backup.ts`). They act on the journal's
 * file directly, never through the service; the PostgreSQL journal is
 * backed up with the database's own tools (docs/postgres.md).
 */
import { join } from 'node:path';
import { optionalString, UsageError, type Command, type Context } from '../command.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';

const DATA = { data: { type: 'string', value: '<dir>', description: 'the journal directory (default: $LEGALWORK_DATA, else ./data)' } } as const;

/** The embedded journal's directory; the PostgreSQL journal is not one (its tools are the database's). */
function dataDirOf(ctx: Context): string {
  if (ctx.env.LEGALWORK_DATABASE_URL && !optionalString(ctx.values, 'data')) {
    throw new UsageError('LEGALWORK_DATABASE_URL names the PostgreSQL journal: back it up with pg_dump and restore it with pg_restore (docs/postgres.md, "Backup and restore"); --data <dir> names an embedded journal instead');
  }
  return optionalString(ctx.values, 'data') ?? ctx.env.LEGALWORK_DATA ?? join(process.cwd(), 'data');
}

/** A refusal of this command, worded like the service's: stdout gets `{error, code, fix}`, stderr a line. */
function refused(ctx: Context, code: string, error: string, fix: string, extra: Record<string, unknown> = {}): ExitCode {
  ctx.out.json({ error, code, fix, ...extra });
  ctx.out.progress(`refused (${code}): ${error}`);
  return EXIT.refused;
}

const IN_USE_FIX = 'stop the service (SIGTERM drains it) and any other program that has the journal open, then run the command again';

const backup: Command = {
  path: ['journal', 'backup'],
  summary: 'Copy the embedded journal to <file>, consistently, while the service runs.',
  description: [
    "SQLite's online backup API copies every page of the journal in one read transaction:",
    'the copy holds every write acknowledged before it began, and the service goes on',
    'serving meanwhile. The copy is then checked (integrity, each stream\'s versions, each',
    "grain's seqs). Never overwrites a file. Prints {backup, pages, events, grains, streams}.",
  ].join('\n'),
  args: [{ name: 'file', description: 'where the copy goes (a new file)' }],
  options: DATA,
  async run(ctx) {
    const { backupJournal } = await import('../../journal/sqlite-backup.ts');
    let made;
    try {
      made = await backupJournal(dataDirOf(ctx), ctx.args.file);
    } catch (error) {
      if (error instanceof UsageError) throw error;
      return refused(ctx, 'BACKUP_FAILED', (error as Error).message, 'name an existing journal directory with --data and a new file to write the copy to');
    }
    if (made.problems.length) return refused(ctx, 'BACKUP_CHECK_FAILED', `the copy at ${ctx.args.file} does not check out: ${made.problems.join('; ')}`, 'the journal itself may be damaged: run `legalwork journal backup` again, and keep the earlier backups', { problems: made.problems });
    ctx.out.json({ backup: ctx.args.file, pages: made.pages, events: made.events, grains: made.grains, streams: made.streams });
    return EXIT.ok;
  },
};

const restore: Command = {
  path: ['journal', 'restore'],
  summary: 'Put a checked copy of the journal in place of the embedded journal (the service stopped).',
  description: [
    'Refuses while the journal is open (the service, or any other program), and refuses a copy',
    "that does not check out (integrity, each stream's versions, each grain's seqs): nothing is",
    'replaced then. The journal it replaces is kept beside it as journal.db.replaced-<instant>.',
    'Start the service afterwards. Prints {restored, replaced, events, grains, streams}.',
  ].join('\n'),
  args: [{ name: 'file', description: 'the copy to restore (a backup)' }],
  options: DATA,
  async run(ctx) {
    const { restoreJournal } = await import('../../journal/sqlite-backup.ts');
    const dataDir = dataDirOf(ctx);
    const done = restoreJournal(ctx.args.file, dataDir);
    if (done.refused === 'in_use') return refused(ctx, 'JOURNAL_IN_USE', `the journal in ${dataDir} is open (the service runs, or another program has it): a journal in use is never overwritten`, IN_USE_FIX);
    if (done.refused === 'check') return refused(ctx, 'RESTORE_CHECK_FAILED', `${ctx.args.file} does not check out, so nothing was replaced: ${done.check.problems.join('; ')}`, 'restore another backup (each backup is checked as it is taken)', { problems: done.check.problems });
    ctx.out.json({ restored: join(dataDir, 'journal.db'), from: ctx.args.file, replaced: done.replaced, events: done.check.events, grains: done.check.grains, streams: done.check.streams });
    return EXIT.ok;
  },
};

const vacuum: Command = {
  path: ['journal', 'vacuum'],
  summary: 'Give a stopped journal\'s free pages back to the disk, and from then on as purges free them.',
  description: [
    'A journal an earlier build created keeps the pages that purged sandbox grains freed and',
    'reuses them (its file stops growing, but does not shrink). This rewrites it with',
    'incremental auto_vacuum, so it gives them back now and the sweeper gives them back from',
    'then on. The service must be stopped; the rewrite needs as much free disk as the journal.',
    'Prints {bytesBefore, bytesAfter}.',
  ].join('\n'),
  options: DATA,
  async run(ctx) {
    const { vacuumJournal } = await import('../../journal/sqlite-backup.ts');
    const dataDir = dataDirOf(ctx);
    let done;
    try {
      done = vacuumJournal(dataDir);
    } catch (error) {
      return refused(ctx, 'VACUUM_FAILED', (error as Error).message, 'name the journal directory with --data');
    }
    if (done.refused) return refused(ctx, 'JOURNAL_IN_USE', `the journal in ${dataDir} is open (the service runs, or another program has it)`, IN_USE_FIX);
    ctx.out.json({ bytesBefore: done.before, bytesAfter: done.after });
    return EXIT.ok;
  },
};

export const journalCommands = [backup, restore, vacuum];
