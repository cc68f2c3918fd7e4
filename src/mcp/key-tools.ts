/**
 * The server's own key (LEGALWORK_KEY): `key_self` reads where it stands,
 * `roll_key` rolls it (the successor shown once, in the result), and
 * `revoke_key` ends it at once. Each acts on the key the server was started
 * with, through the `/keys/self…` doors; the server keeps using that key
 * until it is restarted with another.
 */
import { z } from 'zod';
import type { RegisterTool } from './register.ts';
import { DESTROY, documented, READ, WRITE } from './schemas.ts';

export function registerKeyTools(tool: RegisterTool) {
  tool(
    'key_self',
    {
      title: 'This server\'s API key',
      description: [
        'GET /keys/self as LEGALWORK_KEY: the key\'s state (active; rolled, still honoured until expiresAt), when it was last used (good to the hour),',
        'the key it was rolled into or from (with that key\'s state and last use), and its owner\'s spend ceiling and committed spend. Never the key itself.',
        'Use it to see how much of the spend ceiling is left before a paid act, and, after a roll, whether the old key is still being sent.',
        'Refusals come back as error results with a fix: 401 KEY_REQUIRED (no LEGALWORK_KEY: a person issues one with POST /keys), 401 KEY_REVOKED or KEY_EXPIRED',
        '(this key is no longer honoured: the refusal names its successor, which a person gives this server as LEGALWORK_KEY).',
      ].join(' '),
      inputSchema: z.strictObject({}),
      hints: READ,
    },
    (_, calls) => calls.call<'/keys/self', 'get'>('GET', '/keys/self'),
  );

  tool(
    'roll_key',
    {
      title: 'Roll this server\'s API key',
      description: [
        'POST /keys/self/roll as LEGALWORK_KEY: issues a successor that owns what the key owns (its records, spend ceiling and committed spend), shown once in this result as `key`.',
        'The rolled key stays honoured for expiresInSeconds (default 86400, at most 604800; 0 ends it at once), then every door refuses it 401 KEY_EXPIRED.',
        'This server keeps sending the rolled key: hand the successor to a person, who restarts it with LEGALWORK_KEY set to the successor before the expiry.',
        'Use it when the key may have leaked, or to rotate it on a schedule. Refusals come back as error results with a fix:',
        '409 KEY_ALREADY_ROLLED (it was rolled already: the refusal names the successor), 422 INVALID_REQUEST (expiresInSeconds out of range), 401 KEY_REVOKED or KEY_EXPIRED.',
      ].join(' '),
      inputSchema: z.strictObject({
        expiresInSeconds: documented(z.number().int().min(0).max(604800).optional(), 'how long the rolled key stays honoured, in seconds: 0 (at once) to 604800 (7 days); default 86400 (a day)', [3600]),
      }),
      hints: WRITE,
    },
    ({ expiresInSeconds }, calls) => calls.call<'/keys/self/roll', 'post'>('POST', '/keys/self/roll', { body: expiresInSeconds === undefined ? {} : { expiresInSeconds } }),
  );

  tool(
    'revoke_key',
    {
      title: 'Revoke this server\'s API key',
      description: [
        'POST /keys/self/revoke as LEGALWORK_KEY: the key is refused 401 KEY_REVOKED from now on, on every door of every service process, and so is every later call of this server.',
        'Its records stay readable by id; a successor it was rolled into keeps them, and without one they are left to no key (roll_key with expiresInSeconds 0 ends the key at once and keeps them).',
        'Use it only when a person asks, or when the key has certainly leaked and nothing should be written with it again. It cannot be undone.',
        'Refusals come back as error results with a fix: 401 KEY_REQUIRED (no LEGALWORK_KEY), 401 KEY_REVOKED or KEY_EXPIRED (already no longer honoured).',
      ].join(' '),
      inputSchema: z.strictObject({}),
      hints: DESTROY,
    },
    (_, calls) => calls.call<'/keys/self/revoke', 'post'>('POST', '/keys/self/revoke'),
  );
}
