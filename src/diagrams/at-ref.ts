/**
 * A machine as another git ref had it, built from that ref's own sources:
 * the ref's `machines/` is written into a temp directory (`git archive`),
 * beside this checkout's `node_modules`, and read there by a child process
 * (`read-machines.ts`), so the ref's code (its guards, its actions, its
 * version) is what is read, never guessed from the SVG it drew.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from '../paths.ts';
import type { Read } from './read-machines.ts';

const READER = fileURLToPath(new URL('./read-machines.ts', import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx/cli');
/** What a ref's machines may import: themselves and, at older refs, modules under src/. */
const TREES = ['machines', 'src'];

const git = (root: string, args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The commit a ref names here, or null when it names none. */
export function commitOf(root: string, ref: string): string | null {
  try {
    return git(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]) || null;
  } catch {
    return null;
  }
}

/** Reads the sources in a tree on disk, in a child process (so a tree's modules never mix with this one's). */
export function readMachinesIn(dir: string, sources: Array<{ source: string; id?: string }>): Read[] {
  const run = spawnSync(process.execPath, [TSX, READER, dir, ...sources.map((s) => (s.id ? `${s.source}=${s.id}` : s.source))], { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`reading the machines in ${dir} failed: ${(run.stderr || run.error?.message || '').trim().split('\n').slice(0, 5).join(' ')}`);
  return JSON.parse(run.stdout) as Read[];
}

/** Reads the sources as `commit` of the repository at `root` has them, with the packages of `modules`; the temp tree is removed afterwards. */
export function readMachinesAt(root: string, commit: string, sources: Array<{ source: string; id?: string }>, modules = join(PACKAGE_ROOT, 'node_modules')): Read[] {
  const dir = mkdtempSync(join(tmpdir(), 'legalwork-machines-at-'));
  try {
    // The machines and what they import: at some refs the machines imported from src/.
    const present = git(root, ['ls-tree', '--name-only', commit]).split('\n').filter((name) => TREES.includes(name));
    if (present.length) execFileSync('tar', ['-x', '-C', dir], { input: execFileSync('git', ['archive', '--format=tar', commit, ...present], { cwd: root, maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] }) });
    mkdirSync(join(dir, 'machines'), { recursive: true });
    // The ref's modules import their packages (xstate) from this checkout's, and are ES modules as here.
    symlinkSync(modules, join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
    return readMachinesIn(dir, sources);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
