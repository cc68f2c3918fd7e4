/**
 * Memory at scale: 100,000 Matters created over HTTP in one workspace, then a
 * sample of them served (GET), with the service's resident memory (VmRSS of
 * the process, from /proc) read after each phase, and its peak (VmHWM).
 *
 * The supervisor keeps at most `residentActors` idle Matter actors in memory
 * (least recently used are passivated and rehydrated from the journal on the
 * next touch), so memory is bounded by that cap and not by the Matter count.
 */
import { drive } from './lib/load.ts';
import { collectMatterIds, CREATE_BODY, openWorkspace } from './matters.ts';
import { spawnService, removeDir, tempDataDir } from './lib/service.ts';
import { mib, num, table, verdict } from './lib/table.ts';

const GIB = 1024 ** 3;

export interface MemoryFigures {
  created: number;
  createSeconds: number;
  served: number;
  serveSeconds: number;
  counted: number;
  rss: { start: number; afterCreate: number; afterServe: number; peak: number };
}

export async function measureMemory(matters = Number(process.env.BENCH_MATTERS ?? 100_000), sample = Number(process.env.BENCH_SAMPLE ?? 20_000)): Promise<MemoryFigures> {
  const dir = tempDataDir();
  const service = await spawnService(dir);
  try {
    const prefix = await openWorkspace(service.url);
    const start = service.memory().rss;
    const ids: string[] = [];
    const create = await drive({
      title: 'create',
      url: service.url,
      method: 'POST',
      path: () => `${prefix}/matters`,
      body: () => CREATE_BODY,
      amount: matters,
      // Long enough for the whole count on a slow machine (500 creates/s): the row is for that many Matters, not fewer.
      duration: Math.max(600, matters / 500),
      onResponse: collectMatterIds(ids),
    });
    const afterCreate = service.memory().rss;
    // Serve a spread sample: every Matter in it is a distinct one, old and new alike.
    const stride = Math.max(1, Math.floor(ids.length / sample));
    const serve = await drive({ title: 'serve', url: service.url, method: 'GET', path: (i) => `${prefix}/matters/${ids[(i * stride) % ids.length]}`, amount: sample, duration: 600 });
    const afterServe = service.memory().rss;
    const counts = (await (await fetch(`${service.url}${prefix}`)).json()) as { workspace: { counts: { matters: number } } };
    return {
      created: create.ok,
      createSeconds: create.seconds,
      served: serve.ok,
      serveSeconds: serve.seconds,
      counted: counts.workspace.counts.matters,
      rss: { start, afterCreate, afterServe, peak: service.memory().peak },
    };
  } finally {
    await service.stop();
    removeDir(dir);
  }
}

export async function bench(): Promise<string[]> {
  const f = await measureMemory();
  return [
    `Memory: ${num(f.created)} Matters created (${num(f.created / f.createSeconds)}/s), ${num(f.served)} of them served (${num(f.served / f.serveSeconds)}/s); the workspace counts ${num(f.counted)}`,
    ...table(
      ['service resident memory (VmRSS)', 'value'],
      [
        ['at start', mib(f.rss.start)],
        ['after the creates', mib(f.rss.afterCreate)],
        ['after the GETs', mib(f.rss.afterServe)],
        ['peak (VmHWM)', mib(f.rss.peak)],
      ],
    ),
    // Issue 25's target is at 1,000,000 Matters (BENCH_MATTERS=1000000); the default run holds 100,000 to the same bound.
    `target RSS <= 1 GiB with ${num(f.created)} Matters: peak ${mib(f.rss.peak)} -> ${verdict(f.rss.peak <= GIB && f.created >= Number(process.env.BENCH_MATTERS ?? 100_000))}`,
  ];
}
