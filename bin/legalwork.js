#!/usr/bin/env node
// The published entry point: loads the TypeScript sources through tsx and
// runs the command line. The exit code is set, never forced, so a command
// that keeps running (serve, mcp serve, events tail --follow) keeps running.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`legalwork: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 5;
}
