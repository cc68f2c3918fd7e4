/**
 * Reads a JSON request body given on the command line: inline (`'{"a":1}'`),
 * from a file (`@body.json`) or from stdin (`-`). A body that is not a JSON
 * object is a usage error, worded, before anything is sent.
 */
import { readFile } from 'node:fs/promises';
import { UsageError } from './command.ts';

export async function readJsonObject(source: string, flag: string): Promise<Record<string, unknown>> {
  return (await readJsonBody(source, flag)).value;
}

/** The same, with the body's exact text (a signature covers the bytes, not a re-serialized copy). */
export async function readJsonBody(source: string, flag: string): Promise<{ text: string; value: Record<string, unknown> }> {
  let text: string;
  if (source === '-') {
    text = await readAll(process.stdin);
  } else if (source.startsWith('@')) {
    try {
      text = await readFile(source.slice(1), 'utf8');
    } catch (error) {
      throw new UsageError(`${flag}: cannot read ${source.slice(1)}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  } else {
    text = source;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${flag} is not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`${flag} must be a JSON object`);
  return { text, value: value as Record<string, unknown> };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
