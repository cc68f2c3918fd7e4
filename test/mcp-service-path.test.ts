/** The `get` tool's path rule: a path of the service, and nothing that can leave it (the tool sends the key). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { servicePathProblem, SERVICE_PATH_PATTERN } from '../src/mcp/service-path.ts';

describe('servicePathProblem', () => {
  it.each(['/healthz', '/matters?tag=demand_letter&limit=5', '/workspaces/ws_1/events?after=3&feed=reminders', '/.well-known/agents.json', '/matters/mt_1/journal', '/a..b/c...'])('accepts %s', (path) => {
    expect(servicePathProblem(path)).toBeNull();
    expect(new RegExp(SERVICE_PATH_PATTERN).test(path)).toBe(true);
  });

  it.each([
    ['http://evil.example/x', /start with "\/"/],
    ['//evil.example/x', /another host/],
    ['/x/../../etc/passwd', /segments/],
    ['/x/%2e%2e/y', /segments/],
    ['/x/.%2E/y', /segments/],
    ['/x/%5c..%5cy', /backslash/],
    ['/x\ty', /whitespace/],
    ['/x?y#z', /fragment/],
    ['/%E0%A4%A', /percent/],
    [`/${'a'.repeat(2048)}`, /longer/],
  ])('refuses %s', (path, words) => {
    expect(servicePathProblem(path)).toMatch(words);
  });

  it('never lets an accepted path resolve off the service or climb out of the root', () => {
    const unit = fc.constantFrom('a', '/', '.', '%', '2', 'e', 'E', '5', 'c', '?', '=', '&', ':', '@', '\\', '#', ' ');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 30 }), (tail) => {
        const path = `/${tail}`;
        if (servicePathProblem(path) !== null) return;
        const base = new URL('http://service.invalid/base/');
        const resolved = new URL(`${base.origin}/base${path}`);
        expect(resolved.origin).toBe(base.origin);
        expect(resolved.pathname.startsWith('/base/')).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
