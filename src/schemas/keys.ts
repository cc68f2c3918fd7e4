/**
 * The keys' doors (`src/http/routes/keys.ts`): a key as `POST /keys` issues
 * it, a key's state as `GET /keys/self` answers it, and what a roll and a
 * revocation answer. Like the inspection's, this module names the components
 * it points at by name (`refTo`), so components.ts can list these without a
 * cycle.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DEFAULT_ROLL_EXPIRY_SECONDS, KEY_STATES, MAX_ROLL_EXPIRY_SECONDS } from '../domain/key-life.ts';
import { At, Enum, EXAMPLE, Money, Nullable, Num, Opt, Str, StrEx, Strict, Text } from './common.ts';

const refTo = (name: string, description?: string) => Type.Unsafe({ $ref: `${name}#`, ...(description ? { description } : {}) });
const named = <T extends object>(name: string, schema: T): T & { $id: string } => ({ ...schema, $id: name });

/** Another key id, in the service's shape, for the examples of a roll. */
export const EXAMPLE_SUCCESSOR = 'key_0r7x3m9q2w5e8t1y4u6i0o3p5';

const Key = (description: string) => Type.String({ pattern: '^lwk_[A-Za-z0-9_-]{43}$', description, examples: ['lwk_G2R6t_41DaBwsvTvMAR1VQZu-Yc5soO-aptXVaU1Ojc'] });
const Use = Strict({ header: StrEx('Authorization'), scheme: StrEx('Bearer'), example: StrEx('Authorization: Bearer <key>') });

/** An API key as `POST /keys` issues it: the only time the key itself is shown. */
export const IssuedKey = named('IssuedKey', Strict({
  type: Type.Literal('OK'),
  key: Key('the key, shown once'),
  shownOnce: Type.Literal(true),
  keyId: StrEx(EXAMPLE.keyId),
  tier: Type.Literal('identified'),
  email: StrEx('ada@example.com'),
  building: Opt(Str),
  spendCeilingUsd: Nullable(Num),
  issuedAt: At(),
  use: Use,
  covers: StrEx('the whole surface: one key for every top-level write; reads and sandbox grains need none'),
  notice: StrEx('the key is stored hashed and cannot be shown again; keep it now'),
}, 'the key, shown once; it is stored hashed'));

export const KeyState = named('KeyState', Enum(KEY_STATES, 'where a key stands: active (as issued), rolled (a successor issued; still honoured until expiresAt), revoked or expired (refused 401 on every door)'));

/** One key as its holder sees it. */
export const KeyView = named('KeyView', Strict({
  id: StrEx(EXAMPLE.keyId),
  state: refTo('KeyState'),
  issuedAt: At(),
  expiresAt: Nullable(At('rolled: when it stops being honoured (refused 401 KEY_EXPIRED from then); null until it is rolled')),
  revokedAt: Nullable(At('when it was revoked (refused 401 KEY_REVOKED from then); null unless revoked')),
  lastUsedAt: Nullable(At('when it was last honoured, good to the hour: the first use in each hour is journaled per service process, so it was used at or after this instant and not an hour later without this moving; null when never used')),
  successorId: Nullable(StrEx(EXAMPLE_SUCCESSOR, { description: 'the key it was rolled into, which owns its records and spend; null until it is rolled' })),
  predecessorId: Nullable(StrEx(EXAMPLE.keyId, { description: 'the key rolled into this one; null for a key POST /keys issued' })),
}, 'an API key\'s state: never the key itself'));

/** `GET /keys/self`: the presenting key, the key it succeeded, and what they own together. */
export const KeySelf = named('KeySelf', Strict({
  type: Type.Literal('OK'),
  key: refTo('KeyView', 'the key this request presented'),
  predecessor: Opt(refTo('KeyView', 'the key rolled into this one, while it may still be in use (state rolled until its expiresAt): its lastUsedAt says whether anything still sends it')),
  owner: Strict({
    id: StrEx(EXAMPLE.keyId, { description: 'the first key\'s id: every key rolled from it owns the same records (journaled under this id) and the same spend' }),
    email: StrEx('ada@example.com'),
    building: Opt(Str),
    spendCeilingUsd: Nullable(Num),
    committedUsd: Type.Number({ description: 'posted prices of paid acts reserved under the ceiling, by every key of the owner', examples: [199] }),
  }),
}, 'the presenting key\'s state, expiry and last use, and its owner\'s ceiling and committed spend'));

/** `POST /keys/self/roll`: the successor, shown once, and the rolled key. */
export const RolledKey = named('RolledKey', Strict({
  type: Type.Literal('OK'),
  key: Key('the successor key, shown once (a retry of this roll under its Idempotency-Key, presenting the rolled key, is shown it again: it is derived from that key and never stored)'),
  shownOnce: Type.Literal(true),
  keyId: StrEx(EXAMPLE_SUCCESSOR, { description: 'the successor\'s id' }),
  tier: Type.Literal('identified'),
  issuedAt: At(),
  rolled: refTo('KeyView', 'the key that was rolled: state rolled, honoured until its expiresAt (expired at once when expiresInSeconds was 0)'),
  owner: Strict({
    id: StrEx(EXAMPLE.keyId, { description: 'the first key\'s id: the successor owns its records and spend' }),
    spendCeilingUsd: Nullable(Num),
    committedUsd: Type.Number({ description: 'the spend the successor continues', examples: [199] }),
  }),
  use: Use,
  notice: StrEx('the key is stored hashed and cannot be shown again; keep it now, and move every client to it before the rolled key expires'),
}, 'the successor key, shown once; it is stored hashed'));

/** `POST /keys/self/revoke`: the key, refused from now on. */
export const RevokedKey = named('RevokedKey', Strict({
  type: Type.Literal('OK'),
  key: refTo('KeyView', 'the key, state revoked'),
  notice: StrEx('this key is refused from now on, on every door and every process; its records stay readable by id, and its successor (if any) keeps them'),
}, 'the revoked key'));

/** `POST /keys/self/roll`'s body: how long the rolled key stays honoured. */
export const RollKeyBody = Strict({
  expiresInSeconds: Opt(Type.Integer({ minimum: 0, maximum: MAX_ROLL_EXPIRY_SECONDS, default: DEFAULT_ROLL_EXPIRY_SECONDS, description: `how long the rolled key stays honoured, in seconds: 0 (refused at once) to ${MAX_ROLL_EXPIRY_SECONDS} (7 days); default ${DEFAULT_ROLL_EXPIRY_SECONDS} (a day)`, examples: [3600] })),
}, { description: 'optional: how long the rolled key stays honoured', examples: [{ expiresInSeconds: 3600 }] });

export const KEY_COMPONENTS = [IssuedKey, KeyState, KeyView, KeySelf, RolledKey, RevokedKey];

/** What `POST /keys` takes (form fields or JSON). */
export const IssueKeyBody = Strict(
  {
    email: Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', description: 'the email the key is issued to' }),
    building: Type.Optional(Text(200)),
    spendCeilingUsd: Type.Optional({ ...Money, description: 'a hard ceiling on the posted prices of paid acts taken with this key; absent means none' }),
  },
  { description: 'form fields or JSON: email, optional building and spendCeilingUsd', examples: [{ email: 'agent@example.com', building: 'a patent filing agent' }] },
);
export type IssueKeyBody = Static<typeof IssueKeyBody>;
