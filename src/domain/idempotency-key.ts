/** What an Idempotency-Key may be (decisions.md): 1 to 255 printable ASCII characters. Checked by the service and, ahead of it, by the CLI. */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x20-\\x7E]{1,255}$';
const KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** Why `key` is not an Idempotency-Key, or null when it is one. */
export function idempotencyKeyProblem(key: string): string | null {
  if (KEY.test(key)) return null;
  if (key.length === 0) return 'is empty';
  if (key.length > 255) return `is ${key.length} characters long`;
  return 'holds a character that is not printable ASCII';
}
