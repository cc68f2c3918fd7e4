/**
 * The SQLite driver, chosen by the Node line the process runs on:
 * better-sqlite3 13 (Node-API) on Node 22 and newer, 12 on Node 20. The API
 * is the same; neither runs on the other's line. 12 aborts on Node 24.19+
 * (`RemoveEnvironmentCleanupHook: Assertion failed: (env) != nullptr`): its
 * Statement is a raw node::ObjectWrap, whose destructor now needs an entered
 * context, and a background GC finalizes statements without one. 13 is
 * built for Node >= 22 and crashes Node 20. When Node 20 support ends (it
 * is past its end of life), 12 and this choice go.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** The package loaded: `better-sqlite3-napi` is better-sqlite3 13 under an npm alias (package.json). */
export const SQLITE_DRIVER = NODE_MAJOR >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';

/** Where it is, for the writer thread to load the same one. */
export const SQLITE_DRIVER_PATH = require.resolve(SQLITE_DRIVER);

export const Database: typeof BetterSqlite3 = require(SQLITE_DRIVER);
export type Database = BetterSqlite3.Database;
