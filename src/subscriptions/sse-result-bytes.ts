/**
 * One result's JSON sent to many SSE streams as one Buffer. graphql-sse prints every event
 * itself, `JSON.stringify` of the result on each stream: a live query's result of 290 KB
 * shared by 51 streams was serialized 51 times per change (15 MB of text, a fifth of the
 * process's time and much of its garbage collection), and each copy was handed to its socket.
 *
 * The pipeline's `response-size` step measures each result object's JSON once, whatever the
 * number of streams it goes to (result-steps.ts): that text is encoded here once per result
 * object ({@link rememberResultText}); graphql-sse is handed a small placeholder result naming
 * it ({@link SseResultBytes.placeholder}), and the stream's writer sends the event's text
 * around the shared bytes ({@link SseResultBytes.pieces}), which every socket's queue holds
 * by reference, not as a copy.
 */
import type { ExecutionResult } from 'graphql';
import type { ResultText } from '../pipeline/response-size';

/** The placeholder's one key: a NUL character, which JSON writes escaped (`\u0000`), so no result's text holds it as written. */
const PLACEHOLDER_KEY = '\u0000statev-sse-result';
/** A placeholder's JSON up to its id: `{"\u0000statev-sse-result":"`. */
const MARK = `{${JSON.stringify(PLACEHOLDER_KEY)}:"`;

/** The UTF-8 bytes of each result object's JSON, as the `response-size` step measured it. */
const encoded = new WeakMap<object, Buffer>();

/** Remembers the JSON of `result` (the `response-size` step's `measured`), encoded once per result object. */
export function rememberResultText(result: object, text: ResultText): void {
  if (encoded.has(result)) return;
  encoded.set(
    result,
    typeof text === 'string' ? Buffer.from(text, 'utf8') : Buffer.concat([text.head, Buffer.from(text.tail, 'utf8')]),
  );
}

/** The bytes {@link rememberResultText} kept for `result`, if any. */
export function resultBytes(result: object): Buffer | undefined {
  return encoded.get(result);
}

/**
 * The results of one SSE stream handed to graphql-sse as placeholders, until the stream's
 * writer sends them. At most one per operation waits (an operation hands over its next
 * result only once its stream has flushed, slow-readers.ts); they go with the stream.
 */
export class SseResultBytes {
  readonly #pending = new Map<string, Buffer>();
  #serial = 0;

  /** A placeholder result for `bytes` (a result's JSON), to return from graphql-sse's `onNext`. */
  placeholder(bytes: Buffer): ExecutionResult {
    this.#serial += 1;
    const id = String(this.#serial);
    this.#pending.set(id, bytes);
    return { [PLACEHOLDER_KEY]: id } as unknown as ExecutionResult;
  }

  /**
   * An event as graphql-sse printed it, split around its placeholder: the text before, the
   * result's bytes, the text after; null when it holds none of this stream's placeholders.
   */
  pieces(event: string): [string, Buffer, string] | null {
    if (this.#pending.size === 0) return null;
    const at = event.indexOf(MARK);
    if (at < 0) return null;
    const from = at + MARK.length;
    const end = event.indexOf('"}', from);
    if (end < 0) return null;
    const id = event.slice(from, end);
    const bytes = this.#pending.get(id);
    if (bytes === undefined) return null;
    this.#pending.delete(id);
    return [event.slice(0, at), bytes, event.slice(end + 2)];
  }
}
