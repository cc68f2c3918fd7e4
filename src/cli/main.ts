/**
 * The `legalwork` command: finds the sub-command named by the first words of
 * the command line and runs it. Each sub-command declares its arguments and
 * options (see `command.ts`); this file only routes and prints the overview.
 */
import { argumentUsage, columns, runCommand, type Command } from './command.ts';
import { deadlineCommands } from './commands/deadlines.ts';
import { eventCommands } from './commands/events.ts';
import { inspectCommands } from './commands/inspect.ts';
import { journalCommands } from './commands/journal.ts';
import { keyCommands } from './commands/keys.ts';
import { matterCommands } from './commands/matters.ts';
import { mcpCommands } from './commands/mcp.ts';
import { orderCommands } from './commands/orders.ts';
import { serveCommands } from './commands/serve.ts';
import { webhookCommands } from './commands/webhooks.ts';
import { supplyCommands } from './commands/supply.ts';
import { runVerify, VERIFY_SUMMARY } from './commands/verify.ts';
import { workspaceCommands } from './commands/workspaces.ts';
import { EXIT } from './exit-codes.ts';
import type { Streams } from './output.ts';
import { DEFAULT_BASE_URL } from '../client/service-client.ts';

export const COMMANDS: Command[] = [...serveCommands, ...matterCommands, ...inspectCommands, ...orderCommands, ...workspaceCommands, ...deadlineCommands, ...eventCommands, ...keyCommands, ...supplyCommands, ...webhookCommands, ...mcpCommands, ...journalCommands];

export function overview(): string {
  const rows: [string, string][] = COMMANDS.map((c) => [[...c.path, ...(c.args ?? []).map(argumentUsage)].join(' '), c.summary]);
  // verify parses its own arguments, so it is no Command; it is listed just before the mcp commands.
  const mcp = COMMANDS.findIndex((c) => c.path[0] === 'mcp');
  rows.splice(mcp === -1 ? rows.length : mcp, 0, ['verify --url <base>', VERIFY_SUMMARY]);
  return [
    'usage: legalwork <command> [options]',
    '',
    'commands:',
    ...columns(rows),
    '',
    'Every command takes --help. Commands that call the service print its JSON answer on stdout',
    `(--pretty to indent it) and take --url (default $LEGALWORK_URL, else ${DEFAULT_BASE_URL});`,
    'LEGALWORK_KEY is sent as Authorization: Bearer. --workspace <id> rehearses in a sandbox workspace.',
    'exit codes: 0 done, 1 refused (4xx), 2 bad command line, 3 service unreachable, 4 service failed (5xx)',
    '',
  ].join('\n');
}

/** Runs the command line `argv` (without node and the script); resolves with the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, streams: Streams = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const [first, second] = argv;
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') {
    streams.stdout.write(overview());
    return EXIT.ok;
  }
  if (first === 'verify') return runVerify(argv.slice(1), env, streams);
  const exact = COMMANDS.find((c) => c.path.length === 2 ? c.path[0] === first && c.path[1] === second : c.path[0] === first);
  if (exact) return runCommand(exact, argv.slice(exact.path.length), env, streams);
  const group = COMMANDS.filter((c) => c.path[0] === first && c.path.length === 2);
  if (group.length) {
    const lines = [`usage: legalwork ${first} <${group.map((c) => c.path[1]).join('|')}> [options]`, '', ...columns(group.map((c) => [c.path[1], c.summary])), '', `see: legalwork ${first} <command> --help`, ''];
    if (second === '--help' || second === '-h') {
      streams.stdout.write(lines.join('\n'));
      return EXIT.ok;
    }
    streams.stderr.write(`${second === undefined ? `legalwork ${first}: which one?` : `legalwork ${first}: unknown command "${second}"`}\n${lines.join('\n')}`);
    return EXIT.usage;
  }
  streams.stderr.write(`legalwork: unknown command "${first}"\n\n${overview()}`);
  return EXIT.usage;
}
