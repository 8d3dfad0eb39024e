/** Most characters of a request's value quoted in an error (message and extensions); longer values are cut, with `…`. */
export const QUOTED_VALUE_CHARS = 64;

/**
 * A value of the request as an error quotes it (`FORBIDDEN` refusals of access tokens):
 * at most {@link QUOTED_VALUE_CHARS} characters, so that a variable of many kilobytes is
 * never copied into an error, which is serialized, logged and may be remembered. No real
 * company id, slot or site-document name is that long.
 */
export function quotedValue(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return text.length > QUOTED_VALUE_CHARS ? `${text.slice(0, QUOTED_VALUE_CHARS)}…` : text;
}
