/**
 * What the `get` tool may fetch: a GET path of the configured service, and
 * nothing else. `get` sends the server's key (LEGALWORK_KEY), so a path that
 * could leave the service would hand that key to another address: a path is
 * relative to the service's base address, and anything that could leave it (a
 * scheme, a host, `//`, a backslash, a `..` or `.` segment, also
 * percent-encoded) is refused with the reason, so the tool can never be turned
 * into a fetcher of other addresses or a walker of the tree.
 */

export const SERVICE_PATH_PATTERN = '^/(?!/)[^\\s\\\\#]*$';
const MAX_LENGTH = 2048;

/** Why `path` is not a GET path of the service, or `null` when it is one. */
export function servicePathProblem(path: string): string | null {
  if (path.length > MAX_LENGTH) return `path is longer than ${MAX_LENGTH} characters`;
  if (!path.startsWith('/')) return `path must be relative to the service and start with "/" (e.g. /healthz), got "${clip(path)}"`;
  if (path.startsWith('//')) return 'path must not start with "//": that names another host';
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(path)) return 'path must not contain whitespace or control characters';
  if (path.includes('\\')) return 'path must not contain a backslash';
  if (path.includes('#')) return 'path must not contain a fragment (#)';
  const [pathname] = path.split('?', 1);
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return 'path has a malformed percent-encoding';
  }
  for (const form of [pathname, decoded]) {
    if (form.split('/').some((segment) => segment === '..' || segment === '.')) return 'path must not contain "." or ".." segments';
    if (form.includes('\\')) return 'path must not contain a backslash (also percent-encoded)';
  }
  // The URL parser is the last word: resolved against a base, the path must stay on that base.
  const base = new URL('http://service.invalid');
  const resolved = new URL(path, base);
  if (resolved.origin !== base.origin) return 'path must stay on the service';
  return null;
}

const clip = (s: string) => (s.length > 80 ? `${s.slice(0, 77)}...` : s);
