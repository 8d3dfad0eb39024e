/**
 * `MAX_RESPONSE_BYTES`, the `response-size` step of the result phase (result-steps.ts):
 * each result an operation answers (an HTTP response, a graphql-ws or graphql-sse
 * result, each subscription event, each live query's result) is measured as the JSON the
 * client receives, and one over the limit is replaced by a `QUERY_TOO_EXPENSIVE` error
 * naming the limit.
 */

/** Extensions of the error that replaces a result over the limit. */
interface TooLargeExtensions {
  /** Always `QUERY_TOO_EXPENSIVE`. */
  readonly code: 'QUERY_TOO_EXPENSIVE';
  /** Bytes (UTF-8) the result would have had as JSON. */
  readonly responseBytes: number;
  /** The limit, bytes (`MAX_RESPONSE_BYTES`). */
  readonly maxResponseBytes: number;
}

/** The error (message and extensions) that replaces a result of `bytes` bytes, over `maxResponseBytes`. */
export function tooLargeError(
  bytes: number,
  maxResponseBytes: number,
): { message: string; extensions: TooLargeExtensions } {
  return {
    message: `The response would be ${bytes} bytes, more than the ${maxResponseBytes} bytes allowed (MAX_RESPONSE_BYTES). Ask for fewer fields, companies or pages at once.`,
    extensions: { code: 'QUERY_TOO_EXPENSIVE', responseBytes: bytes, maxResponseBytes },
  };
}

/**
 * A response's JSON in two parts: UTF-8 bytes kept as they were stored (a response-cache
 * hit's `{"data":…`), then the text that follows them. Written as they are, never joined.
 */
export interface SplitText {
  /** The first bytes, UTF-8. */
  readonly head: Buffer;
  /** The text after them. */
  readonly tail: string;
}

/** A response's JSON: one text, or {@link SplitText}. */
export type ResultText = string | SplitText;

/**
 * The bytes of `text` as UTF-8 when they are over `maxBytes`, else null: a string of n
 * UTF-16 units is at most 3n bytes, so short texts are never measured.
 */
export function bytesOver(text: ResultText, maxBytes: number): number | null {
  const known = typeof text === 'string' ? 0 : text.head.length;
  const rest = typeof text === 'string' ? text : text.tail;
  if (known + rest.length * 3 <= maxBytes) return null;
  const bytes = known + Buffer.byteLength(rest);
  return bytes > maxBytes ? bytes : null;
}
