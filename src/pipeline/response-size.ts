/**
 * `MAX_RESPONSE_BYTES`, the last step of every transport: each result an operation
 * answers (an HTTP response, a graphql-ws or graphql-sse result, each subscription
 * event, and any later kind of result such as a live query's) is measured as the JSON
 * the client receives, and one over the limit is replaced by a `QUERY_TOO_EXPENSIVE`
 * error naming the limit.
 */
import { GraphQLError } from 'graphql';
import type { ExecutionResult } from 'graphql';

/** Extensions of the error that replaces a result over the limit. */
interface TooLargeExtensions {
  /** Always `QUERY_TOO_EXPENSIVE`. */
  readonly code: 'QUERY_TOO_EXPENSIVE';
  /** Bytes (UTF-8) the result would have had as JSON. */
  readonly responseBytes: number;
  /** The limit, bytes (`MAX_RESPONSE_BYTES`). */
  readonly maxResponseBytes: number;
}

function tooLarge(bytes: number, maxResponseBytes: number): { message: string; extensions: TooLargeExtensions } {
  return {
    message: `The response would be ${bytes} bytes, more than the ${maxResponseBytes} bytes allowed (MAX_RESPONSE_BYTES). Ask for fewer fields, companies or pages at once.`,
    extensions: { code: 'QUERY_TOO_EXPENSIVE', responseBytes: bytes, maxResponseBytes },
  };
}

/**
 * The bytes of `text` as UTF-8 when they could be over `maxBytes`, else null: a string
 * of n UTF-16 units is at most 3n bytes, so short texts are never measured.
 */
function bytesOver(text: string, maxBytes: number): number | null {
  if (text.length * 3 <= maxBytes) return null;
  const bytes = Buffer.byteLength(text);
  return bytes > maxBytes ? bytes : null;
}

/**
 * A serialized response (HTTP), or its replacement when it is over `maxResponseBytes`:
 * `{"data":null,"errors":[{… QUERY_TOO_EXPENSIVE, responseBytes, maxResponseBytes}]}`.
 *
 * @param text - the response body as JSON text
 * @param maxResponseBytes - the limit, bytes (`MAX_RESPONSE_BYTES`)
 */
export function limitResponseText(text: string, maxResponseBytes: number): string {
  const bytes = bytesOver(text, maxResponseBytes);
  return bytes === null ? text : JSON.stringify({ data: null, errors: [tooLarge(bytes, maxResponseBytes)] });
}

/**
 * One result of a streaming transport (graphql-ws, graphql-sse: a query's result or
 * one subscription event), or its replacement when its JSON is over
 * `maxResponseBytes`: `data: null` and one `QUERY_TOO_EXPENSIVE` error. A subscription
 * goes on after a replaced event; its next event is measured again.
 *
 * @param result - the result, already formatted for the client
 * @param maxResponseBytes - the limit, bytes (`MAX_RESPONSE_BYTES`)
 */
export function limitResult<R extends ExecutionResult>(result: R, maxResponseBytes: number): R {
  let text: string;
  try {
    text = JSON.stringify(result);
  } catch {
    return result; // not JSON (e.g. a cycle): the transport reports its own error
  }
  const bytes = bytesOver(text, maxResponseBytes);
  if (bytes === null) return result;
  const { message, extensions } = tooLarge(bytes, maxResponseBytes);
  return { data: null, errors: [new GraphQLError(message, { extensions: { ...extensions } })] } as unknown as R;
}
