/**
 * A review of machine changes against a git ref: for each registered
 * machine, its rows now and at the ref (`at-ref.ts`), the change between them
 * (`diff.ts`), the drawing of that change (`<machine>.diff.svg`) and the text
 * a reviewer pastes into a review (`machines.diff.md`, also printed).
 */
import { diagramFrom } from './graph.ts';
import { DIFF_GLYPH, toDot } from './dot.ts';
import { diffMachine, unionOf, type MachineDiff } from './diff.ts';
import type { CoverageFile } from './coverage.ts';
import type { MachineModel } from './model.ts';
import type { Read } from './read-machines.ts';
import { renderSvg } from './svg.ts';

export interface Reviewed {
  name: string;
  title: string;
  source: string;
  /** The change, when both sides could be read (a machine new since the ref: `before` is null). */
  diff: MachineDiff | null;
  /** Why it could not be compared (a side that does not load). */
  problem?: string;
}

export interface Against {
  /** The ref as asked (`main`, `origin/main`, a sha). */
  ref: string;
  commit: string;
  /** How the ref was chosen, when it was (`merge base of HEAD and main`). */
  how?: string;
}

const changed = (r: Reviewed) => r.problem !== undefined || (r.diff !== null && (r.diff.before === null || r.diff.changes.length > 0 || r.diff.version.after !== r.diff.version.before));

/** Compares each machine now with its read at the ref. */
export function review(entries: Array<{ name: string; title: string; source: string; now: MachineModel; coverage: CoverageFile | null }>, at: Read[]): Reviewed[] {
  return entries.map(({ name, title, source, now, coverage }) => {
    const then = at.find((r) => r.source === source);
    if (!then || then.status === 'absent') return { name, title, source, diff: diffMachine(null, now, coverage) };
    if (then.status === 'unreadable') return { name, title, source, diff: null, problem: `could not read ${source} at the ref: ${then.reason}` };
    return { name, title, source, diff: diffMachine(then.model, now, coverage) };
  });
}

/** The drawing of one machine's change: the machine now plus what was removed, each marked, with a legend. */
export async function diffSvg(diff: MachineDiff, against: Against): Promise<string> {
  const union = unionOf(diff);
  return renderSvg(toDot(diagramFrom(union.model), { title: `${diff.id}: changes against ${against.ref} (${against.commit.slice(0, 7)})`, states: union.states, transitions: union.transitions, legend: true }));
}

const code = (s: string) => `\`${s}\``;

function machineSection(r: Reviewed, svgPath: (name: string) => string): string[] {
  const out = [`### ${r.title} (${code(r.source)})`, ''];
  if (r.problem) return [...out, `- ${r.problem}`, ''];
  const d = r.diff!;
  if (d.before === null) out.push(`- a new machine: not at the ref`);
  for (const c of d.changes) {
    const what = c.element === 'machine' ? 'the machine' : `${c.element} ${code(c.name)}`;
    const was = c.was ? ` (was ${code(c.was)})` : '';
    const warn = c.rereads ? ` ⚠ can re-read recorded history: ${c.rereads}.` : '';
    out.push(`- ${code(DIFF_GLYPH[c.mark])} ${c.mark} ${what}${was}: ${c.details.join('; ')}.${warn}`);
  }
  if (d.unwalked.length) out.push(`- **No model path walks yet:** ${d.unwalked.map(code).join(', ')} (add the events to ${code(`test/model/${r.name}.adapter.ts`)} if needed, then ${code(`npm run test:model -- ${r.name}`)}).`);
  else if (d.changes.some((c) => c.element === 'transition' && c.mark === 'added')) out.push('- Every added transition is walked by a model path.');
  out.push(`- **Version** (${code(d.version.export ?? 'no version export')}): ${d.version.words}.`);
  out.push(`- Drawn: ${code(svgPath(r.name))} (added, removed and changed marked; a legend).`, '');
  return out;
}

/** The text a reviewer pastes: `no machine changed`, or a section per machine that did. */
export function reviewReport(reviewed: Reviewed[], against: Against, svgPath: (name: string) => string): string {
  const where = `${code(against.ref)} (${against.how ? `${against.how}, ` : ''}${code(against.commit.slice(0, 12))})`;
  const moved = reviewed.filter(changed);
  if (!moved.length) return `no machine changed against ${where}: ${reviewed.map((r) => r.name).join(', ')} as they were.\n`;
  const still = reviewed.filter((r) => !changed(r));
  const head = `## Machine changes against ${where}`;
  const verdicts = moved.filter((r) => r.diff && !r.diff.version.ok).map((r) => `${r.name}: ${r.diff!.version.words}`);
  return [head, '', ...(verdicts.length ? verdicts.map((v) => `> ⚠ ${v}`).concat('') : []), ...moved.flatMap((r) => machineSection(r, svgPath)), ...(still.length ? [`Unchanged: ${still.map((r) => r.name).join(', ')}.`, ''] : [])].join('\n');
}

export { changed as hasChanged };
