/**
 * Reading an upstream response body within the client's limits: size (declared and as
 * it streams), and a JSON body's nesting and count of arrays and objects (followed as it
 * streams, see json-nesting.ts), yielding to the event loop every slice so one large
 * body never holds up the other requests; then parsing it by its content type.
 */
import { JsonNesting } from './json-nesting';
import { Abandoned } from './upstream-failures';
import type { Limits } from './upstream-failures';

/**
 * Most body bytes read (and scanned, see json-nesting.ts) in one turn of the event loop:
 * a large body's chunks, when undici has them buffered, would otherwise all be handled
 * in one turn (about 50 ms for 5 MiB on a loaded machine), holding up every other request.
 */
const READ_SLICE_BYTES = 256 * 1024;

/** From this many bytes on, a body's parsed value is handed on in a later turn of the event loop (see {@link turnAfterLargeBody}). */
const LARGE_BODY_BYTES = READ_SLICE_BYTES;

/**
 * A later turn of the event loop, after the I/O waiting now: two `setImmediate` hops, since
 * an immediate queued from an I/O callback runs in the same turn, before the next poll.
 */
function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** True for a JSON content type (`application/json`, `…+json`). */
function isJson(contentType: string): boolean {
  return /\bjson\b/i.test(contentType);
}

/** A body read whole: its text and its size as received, in bytes. */
export interface BodyText {
  /** The body, UTF-8 decoded. */
  text: string;
  /** Bytes received. */
  bytes: number;
}

/**
 * Reads a body to its end, within `limits`. Past a limit it aborts `controller` with an
 * {@link Abandoned} reason and stops reading (the caller throws the reason); a body is
 * always consumed up to there, so the connection returns to the pool.
 *
 * @param headers - the response headers (`content-length`, `content-type`)
 */
export async function readBody(
  body: AsyncIterable<unknown>,
  headers: Record<string, string | string[] | undefined>,
  limits: Pick<Limits, 'maxBodyBytes' | 'maxJsonDepth' | 'maxContainers'>,
  controller: AbortController,
): Promise<BodyText> {
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxBodyBytes) controller.abort(new Abandoned('too-large'));
  // A JSON body's nesting is followed as it streams: a hostile one is abandoned at the
  // first bracket past the limit, before anything parses it.
  const nesting = isJson(String(headers['content-type'] ?? ''))
    ? new JsonNesting(limits.maxJsonDepth, limits.maxContainers)
    : null;
  const chunks: Buffer[] = [];
  let bytes = 0;
  let sinceTurn = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    bytes += buffer.length;
    sinceTurn += buffer.length;
    if (sinceTurn >= READ_SLICE_BYTES) {
      // Chunks already buffered arrive as microtasks, without a turn of the event loop
      // between them: give other requests one every slice.
      sinceTurn = 0;
      await nextTurn();
    }
    if (bytes > limits.maxBodyBytes) {
      controller.abort(new Abandoned('too-large'));
      break;
    }
    if (nesting && !nesting.feed(buffer)) {
      controller.abort(
        new Abandoned(nesting.exceeded === 'containers' ? 'too-many-containers' : 'too-deep', nesting.exceededAt),
      );
      break;
    }
    chunks.push(buffer);
  }
  return { text: Buffer.concat(chunks, bytes).toString('utf8'), bytes };
}

/**
 * Waits for a later turn of the event loop after a large body (`bytes` at least
 * {@link LARGE_BODY_BYTES}) was parsed: parsing a megabyte takes milliseconds, and what is
 * done with the value next (storing it, mapping it, executing over it) then starts a turn
 * of its own, with other requests' I/O in between. A smaller body goes on at once.
 */
export function turnAfterLargeBody(bytes: number): Promise<void> | null {
  return bytes >= LARGE_BODY_BYTES ? nextTurn() : null;
}

/** A body parsed by its content type, or why its JSON does not parse. */
export type Parsed = { ok: true; value: unknown } | { ok: false; reason: string };

/** Parses a body: JSON when the content type says JSON (blank: null), else the text as it is. */
export function parseBody(text: string, contentType: string): Parsed {
  if (!isJson(contentType)) return { ok: true, value: text };
  if (text.trim() === '') return { ok: true, value: null };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
