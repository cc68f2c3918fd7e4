/**
 * The shape of a `legalwork` sub-command and the one way they are parsed:
 * `node:util` `parseArgs` in strict mode (an unknown option is a usage error,
 * never silently ignored), the options every command shares, and `--help`
 * text generated from the same declaration, so help cannot drift from what
 * the parser accepts.
 */
import { parseArgs } from 'node:util';
import { idempotencyKeyProblem } from '../domain/idempotency-key.ts';
import { EXIT, type ExitCode } from './exit-codes.ts';
import { Output, type Streams } from './output.ts';
import { clientOptionsFromEnv, DEFAULT_BASE_URL, DEFAULT_TIMEOUT_MS, grainPrefix, ServiceClient, ServiceUnreachable, type GrainPrefix } from '../client/service-client.ts';

export interface OptionSpec {
  type: 'string' | 'boolean';
  description: string;
  /** How the value is named in help, e.g. `<n>`. */
  value?: string;
  multiple?: boolean;
  short?: string;
}

export interface ArgumentSpec {
  name: string;
  description: string;
  /** Whether it may be left out (only a trailing argument may be); absent, it is missing from `Context.args`. */
  optional?: boolean;
}

export type Values = Record<string, string | boolean | string[] | undefined>;

export interface Context {
  values: Values;
  args: Record<string, string>;
  out: Output;
  /** `/workspaces/<id>` when `--workspace` was given, else `''`. */
  prefix: GrainPrefix;
  /** The environment the command runs in (a secret a command may take from it). */
  env: NodeJS.ProcessEnv;
  /** A client for `--url` (or `LEGALWORK_URL`) and `LEGALWORK_KEY`. */
  client(): ServiceClient;
}

export interface Command {
  /** The words that name it: `['matters', 'list']`. */
  path: string[];
  summary: string;
  /** A longer description for `--help`: what it does and which door it uses. */
  description: string;
  args?: ArgumentSpec[];
  options?: Record<string, OptionSpec>;
  /** Whether `--workspace <id>` applies (the command's doors mount under a workspace). */
  grain?: boolean;
  /** Whether the command talks to a service (and so takes `--url` and `--timeout`). */
  remote?: boolean;
  /** Whether the command makes one keyable write (and so takes `--idempotency-key`). */
  writes?: boolean;
  run(ctx: Context): Promise<ExitCode>;
}

/** A mistake on the command line: exit 2 with a worded reason. */
export class UsageError extends Error {}

const SHARED: Record<string, OptionSpec> = {
  pretty: { type: 'boolean', description: 'indent the JSON for people' },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
};

const REMOTE: Record<string, OptionSpec> = {
  url: { type: 'string', value: '<base>', description: `the service's base address (default: $LEGALWORK_URL, else ${DEFAULT_BASE_URL})` },
  timeout: { type: 'string', value: '<ms>', description: `how long to wait for an answer before giving up (default ${DEFAULT_TIMEOUT_MS})` },
};

const WRITE: Record<string, OptionSpec> = {
  'idempotency-key': { type: 'string', value: '<key>', description: 'the Idempotency-Key to send (1 to 255 printable ASCII characters): run the command again with the same key to get its first answer instead of a second write (default: a fresh key, reused only on the client\'s own retry of a dropped connection)' },
};

const GRAIN: Record<string, OptionSpec> = {
  workspace: { type: 'string', value: '<id>', description: 'act inside sandbox workspace <id> (paths under /workspaces/<id>)' },
};

function optionsOf(command: Command): Record<string, OptionSpec> {
  return { ...(command.grain ? GRAIN : {}), ...command.options, ...(command.writes ? WRITE : {}), ...(command.remote ? REMOTE : {}), ...SHARED };
}

/** How an argument is written in a usage line: `<name>`, or `[<name>]` when it may be left out. */
export const argumentUsage = (a: ArgumentSpec) => (a.optional ? `[<${a.name}>]` : `<${a.name}>`);

function helpText(command: Command): string {
  const args = (command.args ?? []).map(argumentUsage).join(' ');
  const lines = [`usage: legalwork ${command.path.join(' ')}${args ? ` ${args}` : ''} [options]`, '', `  ${command.summary}`, ''];
  for (const line of command.description.split('\n')) lines.push(line ? `  ${line}` : '');
  if (command.args?.length) {
    lines.push('', 'arguments:');
    lines.push(...columns(command.args.map((a) => [`<${a.name}>`, a.description])));
  }
  const options = Object.entries(optionsOf(command)).map(([name, spec]): [string, string] => [`${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.value ? ` ${spec.value}` : ''}`, `${spec.description}${spec.multiple ? ' (repeatable)' : ''}`]);
  lines.push('', 'options:', ...columns(options));
  if (command.remote) {
    lines.push('', 'environment: LEGALWORK_URL (base address), LEGALWORK_KEY (API key, sent as Authorization: Bearer)');
    lines.push('exit codes: 0 done, 1 refused by the service (4xx), 2 bad command line, 3 service unreachable, 4 service failed (5xx)');
  }
  return `${lines.join('\n')}\n`;
}

/** Parses `argv` (the words after the command's path) and runs the command. */
export async function runCommand(command: Command, argv: string[], env: NodeJS.ProcessEnv, streams: Streams): Promise<ExitCode> {
  const specs = optionsOf(command);
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      options: Object.fromEntries(Object.entries(specs).map(([name, s]) => [name, { type: s.type, ...(s.multiple ? { multiple: true } : {}), ...(s.short ? { short: s.short } : {}) }])),
      allowPositionals: true,
      strict: true,
    }) as { values: Values; positionals: string[] };
  } catch (error) {
    return usage(command, (error as Error).message, streams);
  }
  const out = new Output(parsed.values.pretty === true, streams);
  if (parsed.values.help) {
    out.streams.stdout.write(helpText(command));
    return EXIT.ok;
  }
  const declared = command.args ?? [];
  const required = declared.filter((a) => !a.optional).length;
  if (parsed.positionals.length < required) {
    return usage(command, `missing <${declared[parsed.positionals.length].name}>`, streams);
  }
  if (parsed.positionals.length > declared.length) {
    return usage(command, `unexpected argument "${parsed.positionals[declared.length]}"`, streams);
  }
  const args = Object.fromEntries(declared.flatMap((a, i) => (i < parsed.positionals.length ? [[a.name, parsed.positionals[i]]] : [])));
  try {
    const timeout = optionalInt(parsed.values, 'timeout', { min: 1 });
    const workspace = parsed.values.workspace as string | undefined;
    if (workspace !== undefined && !workspace.trim()) throw new UsageError('--workspace needs a workspace id (ws_…)');
    const idempotencyKey = optionalString(parsed.values, 'idempotency-key');
    const keyProblem = idempotencyKey === undefined ? null : idempotencyKeyProblem(idempotencyKey);
    if (keyProblem !== null) throw new UsageError(`--idempotency-key ${keyProblem}: a key is 1 to 255 printable ASCII characters`);
    const ctx: Context = {
      values: parsed.values,
      args,
      out,
      prefix: grainPrefix(workspace),
      env,
      client: () => {
        const fromEnv = clientOptionsFromEnv(env);
        try {
          return new ServiceClient({ ...fromEnv, ...(parsed.values.url !== undefined ? { baseUrl: parsed.values.url as string } : {}), ...(timeout !== undefined ? { timeoutMs: timeout } : {}), ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) });
        } catch (error) {
          throw new UsageError((error as Error).message);
        }
      },
    };
    return await command.run(ctx);
  } catch (error) {
    if (error instanceof UsageError) return usage(command, error.message, streams);
    if (error instanceof ServiceUnreachable) return out.unreachable(error);
    throw error;
  }
}

/** Two columns, indented, the first padded to its widest entry: the layout of every listing in help. */
export function columns(rows: Array<[string, string]>): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

function usage(command: Command, message: string, streams: Streams): ExitCode {
  streams.stderr.write(`legalwork ${command.path.join(' ')}: ${message}\nsee: legalwork ${command.path.join(' ')} --help\n`);
  return EXIT.usage;
}

/** An integer option, checked; `undefined` when absent. */
export function optionalInt(values: Values, name: string, range: { min?: number; max?: number } = {}): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^-?\d+$/.test(raw.trim())) throw new UsageError(`--${name} must be an integer, got "${String(raw)}"`);
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new UsageError(`--${name} is out of range`);
  if (range.min !== undefined && n < range.min) throw new UsageError(`--${name} must be at least ${range.min}`);
  if (range.max !== undefined && n > range.max) throw new UsageError(`--${name} must be at most ${range.max}`);
  return n;
}

/** A number option (money), checked; `undefined` when absent. */
export function optionalNumber(values: Values, name: string): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got "${String(raw)}"`);
  return n;
}

/** A required string option. */
export function requiredString(values: Values, name: string): string {
  const raw = values[name];
  if (typeof raw !== 'string' || raw === '') throw new UsageError(`--${name} is required`);
  return raw;
}

/** A string option, `undefined` when absent. */
export const optionalString = (values: Values, name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
