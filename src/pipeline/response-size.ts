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
 * The bytes of `text` as UTF-8 when they are over `maxBytes`, else null: a string of n
 * UTF-16 units is at most 3n bytes, so short texts are never measured.
 */
export function bytesOver(text: string, maxBytes: number): number | null {
  if (text.length * 3 <= maxBytes) return null;
  const bytes = Buffer.byteLength(text);
  return bytes > maxBytes ? bytes : null;
}
