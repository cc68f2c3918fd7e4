/**
 * How a page's script reads a door: JSON asked for, and a refusal turned
 * into its words (the catalog's `error` and `fix`, as an agent reads them).
 */

/** A text field of a JSON body, or '' when it has none. */
function textOf(body: unknown, name: string): string {
  const value: unknown = typeof body === 'object' && body !== null ? Reflect.get(body, name) : undefined;
  return typeof value === 'string' ? value : '';
}

/** A refusal's words: its `error`, then its `fix`; what the status says when the body has none. */
export function refusalWords(body: unknown, status: number): string {
  const fix = textOf(body, 'fix');
  return (textOf(body, 'error') || `the service answered ${status}`) + (fix ? ` Fix: ${fix}` : '');
}

/** The JSON a door answers (`T`, as the contract declares it), or an error in its refusal's words; `key` is sent as the bearer API key. */
export async function getJson<T>(url: string, { signal, key }: { signal?: AbortSignal; key?: string | null } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(url, { headers, signal });
  const body: unknown = await res.json().catch(() => ({ error: 'the answer was not JSON' }));
  if (!res.ok) throw new Error(refusalWords(body, res.status));
  return body as T;
}
