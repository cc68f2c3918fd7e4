/**
 * Test harness: the real app over a real SQLite journal in a fresh temp
 * directory, either in-process (`inject`) or listening on a real port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownGrainOf } from '../../src/engine/grains.ts';
import { createApp, type AppOptions } from '../../src/compose.ts';
import { SqliteJournal } from '../../src/journal/sqlite.ts';
import { PostgresJournal } from '../../src/journal/postgres.ts';
import type { JournalStore } from '../../src/journal/store.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from './postgres.ts';

export type TestApp = Awaited<ReturnType<typeof createApp>>;

export function tempDir(prefix = 'legalwork-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The journal this project of the suite runs its apps on (`LEGALWORK_TEST_JOURNAL`, set by vitest.config.ts's postgres project). */
export const PASS_JOURNAL: 'sqlite' | 'postgres' = process.env.LEGALWORK_TEST_JOURNAL === 'postgres' ? 'postgres' : 'sqlite';

/**
 * The journal a test app runs on: SQLite in `dir`, or, with
 * LEGALWORK_TEST_JOURNAL=postgres (the suite's postgres project), PostgreSQL in a
 * schema of its own; `drop` removes what it made.
 */
export async function testJournal(dir: string): Promise<{ journal: JournalStore; drop: () => Promise<void> }> {
  if (PASS_JOURNAL === 'sqlite') return { journal: new SqliteJournal(dir), drop: async () => rmSync(dir, { recursive: true, force: true }) };
  const schema = freshSchema();
  return { journal: await PostgresJournal.connect({ url: TEST_DATABASE_URL, schema }), drop: async () => (rmSync(dir, { recursive: true, force: true }), dropSchema(schema)) };
}

/** Builds the app on a fresh journal; `close()` stops it and removes the journal. */
export async function testApp(options: Partial<AppOptions> = {}) {
  const made = options.journal ? null : await testJournal(tempDir());
  const journal = options.journal ?? made!.journal;
  const app = await createApp({ ...options, journal });
  app.addHook('onClose', async () => {
    await journal.close();
    await made?.drop();
  });
  await app.ready();
  return app;
}

/** The same, listening on an ephemeral loopback port. */
export async function listeningApp(options: Partial<AppOptions> = {}) {
  const app = await testApp(options);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url };
}

/**
 * A restart test: `body` gets `start`, which builds the app on one journal
 * directory each time it is called (close each app before the next start:
 * that is the restart); the directory is removed afterwards.
 */
export async function acrossRestarts(body: (start: (options?: Partial<AppOptions>) => Promise<TestApp>) => Promise<void>): Promise<void> {
  const dir = tempDir();
  try {
    await body(async (options = {}) => {
      const journal = new SqliteJournal(dir);
      const app = await createApp({ ...options, journal });
      app.addHook('onClose', async () => journal.close());
      return app;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** JSON request helper over `inject`: returns status and parsed body. */
export async function call(app: TestApp, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: method as never, url, ...(body !== undefined ? { payload: body as never } : {}), headers });
  let json: any;
  try {
    json = res.json();
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, body: json, headers: res.headers, raw: res.body };
}

/** Opens a sandbox workspace and returns its path prefix (`/workspaces/ws_...`). */
export async function workspace(app: TestApp): Promise<string> {
  const res = await call(app, 'POST', '/workspaces');
  return `/workspaces/${res.body.workspace.id}`;
}

/**
 * Headers for a write on the top-level surface. Top-level writes need an API
 * key (issue 5); every test writes there only through this helper, so the one
 * place that knows how a key is obtained is here.
 */
export async function topLevelHeaders(app: TestApp): Promise<Record<string, string>> {
  return (await topLevelKey(app)).headers;
}

/** The test key of an app: its headers, and the grain its top-level records are journaled in. */
export async function topLevelKey(app: TestApp): Promise<IssuedKey> {
  let issued = issuedKeys.get(app);
  if (!issued) {
    issued = await issueKey(app);
    issuedKeys.set(app, issued);
  }
  return issued;
}

export interface IssuedKey {
  headers: Record<string, string>;
  keyId: string;
  grain: string;
}

/** Issues a fresh key (another customer, for the ownership tests). */
export async function issueKey(app: TestApp, email = 'tests@legalwork.test'): Promise<IssuedKey> {
  const res = await call(app, 'POST', '/keys', { email });
  if (res.status !== 201) throw new Error(`POST /keys answered ${res.status}: ${res.raw}`);
  return { headers: { authorization: `Bearer ${res.body.key}` }, keyId: res.body.keyId, grain: ownGrainOf(res.body.keyId) };
}

/** One key per app: issuing is a journaled write, so tests reuse it. */
const issuedKeys = new WeakMap<TestApp, IssuedKey>();
