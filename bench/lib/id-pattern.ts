/**
 * Texts with their ids made holes, to be filled with fresh ids: how the
 * benchmarks copy a recorded journal (a restart's million events, a grain of
 * a million Matters) under ids no other copy uses, without parsing anything.
 * A pattern alternates text and the index of an id in `prefixes` (the same
 * id is the same index wherever it appears, so a copy stays consistent).
 */

/** Text, id index, text, id index, …, text. */
export type Pattern = Array<string | number>;

/** Makes patterns of texts by `id`, numbering each distinct id once across every text it is given. */
export class IdPatterns {
  private readonly index = new Map<string, number>();
  /** Each numbered id's prefix (`mt`, `as`, …), by its number: what a fresh id for it is minted with. */
  readonly prefixes: string[] = [];

  constructor(private readonly id: RegExp) {}

  pattern = (text: string): Pattern => {
    const parts: Pattern = [];
    let last = 0;
    for (const m of text.matchAll(this.id)) {
      let i = this.index.get(m[0]);
      if (i === undefined) {
        i = this.prefixes.length;
        this.index.set(m[0], i);
        this.prefixes.push(m[0].slice(0, m[0].indexOf('_')));
      }
      parts.push(text.slice(last, m.index), i);
      last = m.index + m[0].length;
    }
    parts.push(text.slice(last));
    return parts;
  };
}

/** The text of `p` with the i-th id of `ids` in each hole numbered i. */
export function fill(p: Pattern, ids: string[]): string {
  let text = p[0] as string;
  for (let i = 1; i < p.length; i += 2) text += ids[p[i] as number] + (p[i + 1] as string);
  return text;
}
