#!/usr/bin/env node
// The published entry point: runs the command line from its bundle (rebuilt
// first when any source is newer; see bundle.js). The exit code is set, never
// forced, so a command that keeps running (serve, mcp serve, events tail
// --follow) keeps running.
import { loadMain } from './bundle.js';

try {
  const main = await loadMain();
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`legalwork: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 5;
}
