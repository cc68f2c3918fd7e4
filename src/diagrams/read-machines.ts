/**
 * Reads machines from a source tree as rows (`model.ts`). Run as a child
 * process on a tree written out of another git ref (`at-ref.ts`), it imports
 * that tree's own `machines/*.ts` (its code, its guards, its version) with
 * this checkout's reader, and prints the rows as JSON on stdout:
 *
 *   tsx src/diagrams/read-machines.ts <dir> <source> [<source> …]
 *
 * A source that is missing there reads as `absent`; one that does not load
 * (or holds no machine) as `unreadable`, with the reason.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { machineIn, modelOf, versionIn, type MachineModel } from './model.ts';

export type Read = { source: string; status: 'read'; model: MachineModel } | { source: string; status: 'absent' } | { source: string; status: 'unreadable'; reason: string };

/** Each source under `dir`, imported and read; `ids` names the machine a source should hold, where it holds several. */
export async function readMachines(dir: string, sources: Array<{ source: string; id?: string }>): Promise<Read[]> {
  const out: Read[] = [];
  for (const { source, id } of sources) {
    const file = resolve(dir, source);
    if (!existsSync(file)) {
      out.push({ source, status: 'absent' });
      continue;
    }
    try {
      const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      const machine = machineIn(module, id);
      if (!machine) out.push({ source, status: 'unreadable', reason: `${source} exports no state machine${id ? ` with the id ${id}` : ''}` });
      else out.push({ source, status: 'read', model: modelOf(machine, versionIn(module)) });
    } catch (error) {
      out.push({ source, status: 'unreadable', reason: error instanceof Error ? error.message.split('\n')[0] : String(error) });
    }
  }
  return out;
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  const [dir, ...specs] = process.argv.slice(2);
  if (!dir || !specs.length) {
    console.error('usage: tsx src/diagrams/read-machines.ts <dir> <source>[=<machine id>] …');
    process.exit(2);
  }
  const sources = specs.map((s) => ({ source: s.split('=')[0], id: s.split('=')[1] }));
  process.stdout.write(`${JSON.stringify(await readMachines(join(dir), sources))}\n`);
}
