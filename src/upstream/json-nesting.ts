/**
 * The nesting bound of upstream JSON: how deep arrays and objects may nest in an answer
 * before the gateway refuses it as hostile (`UPSTREAM_ERROR`, see docs/errors.md).
 *
 * Why a bound: V8's `JSON.parse` builds any depth (it does not recurse), but everything
 * that walks the value afterwards does (the cache's sizing and copying, the mappers,
 * `JSON.stringify`, `structuredClone`), and a few hundred KB of `[[[[…]]]]` overflow the
 * stack there: an `INTERNAL_SERVER_ERROR` with no word of the cause, after the event
 * loop spent time building the tree. Answers of the StateV API nest a handful of levels.
 *
 * How: {@link JsonNesting} counts `[`/`{` against `]`/`}` outside strings over the raw
 * bytes while the body streams in, and the client abandons the body at the first level
 * past the bound. It is a scanner of three states (outside a string, inside one, after a
 * backslash inside one), not a parser: it builds no value and judges no syntax, and
 * `JSON.parse` still parses (and rejects) every body it lets through. On valid JSON its
 * count is exactly the nesting depth, because brackets outside strings are structure
 * and a string ends only at an unescaped `"`; UTF-8 continuation bytes are all ≥ 0x80,
 * so no multi-byte character can look like one of these ASCII bytes. It is the count
 * `textNesting` (src/graph/validation/document-limits.ts) makes of a request's text before graphql-js
 * parses it, done on bytes as they arrive (that one needs the whole string and knows
 * GraphQL's comments and block strings; the upstream layer must not import the graph's).
 *
 * Why not the alternatives: a depth-checking reviver runs only after `JSON.parse` has
 * built the whole tree, calls a function per value (1.2–3 × the parse time on every
 * answer, measured on a 2.3 MB list), and V8's reviver walk itself recurses, so a deep
 * body overflows the stack inside it instead of failing the check. A streaming parser
 * in JavaScript would parse every answer several times slower than `JSON.parse`. The
 * scan costs about one pass of `Buffer#toString` over the same bytes and stops a
 * hostile body after at most {@link MAX_UPSTREAM_JSON_DEPTH} + 1 brackets.
 *
 * The same scan bounds how many arrays and objects a body holds (see
 * {@link BYTES_PER_CONTAINER}): the time `JSON.parse` and every later walk of the value
 * take grows with the number of values far more than with the bytes. Measured on Node 20:
 * a valid 4.2 MB company list of 15,000 objects parses in about 10 ms, but 4.9 MB of
 * arrays nested 63 deep (2.4 million arrays, under the depth bound) in 700-1,000 ms, and
 * the cache's copy of it (`JSON.stringify`) takes another 250-480 ms: over a second of
 * one turn of the event loop for one answer. Parsing such a body on a worker thread
 * (e.g. with piscina) does not help: the value has to come back to the main thread, and
 * V8's structured-clone deserialization of it took 720-1,680 ms there (7-25 ms for the
 * company list), as long as parsing it. Refusing it while it streams in costs nothing.
 */

/** Deepest nesting of arrays and objects accepted in an upstream JSON answer; deeper is `UPSTREAM_ERROR`. */
export const MAX_UPSTREAM_JSON_DEPTH = 64;

/**
 * Bytes of the body limit per array or object allowed: an upstream JSON answer may hold
 * at most `UPSTREAM_MAX_BODY_BYTES / 20` arrays and objects (52,428 for the default
 * 1 MiB), one more is `UPSTREAM_ERROR`. A body as large as the limit may so average 20
 * bytes per array or object; StateV's densest records take 25 bytes or more
 * (`{"name":"Holz","amount":3}` in a recipe), a company 150-280. At the bound, the worst
 * body (`[[],[],…]` or arrays nested 63 deep) parses in about 15 ms.
 */
export const BYTES_PER_CONTAINER = 20;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Follows the nesting depth of a JSON text fed in pieces (the chunks of a response
 * body, as bytes), and tells when it goes past `max`.
 *
 * When to use: one per response body; {@link feed} each chunk in order.
 */
export class JsonNesting {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Bytes fed so far. */
  private offset = 0;
  /** Arrays and objects opened so far. */
  private containers = 0;
  /** Byte offset (from the start of the text) of the bracket that went past `max` or `maxContainers`, once one has. */
  exceededAt: number | null = null;
  /** Which bound that bracket went past: `depth` (`max`) or `containers` (`maxContainers`). */
  exceeded: 'depth' | 'containers' | null = null;

  constructor(
    /** Deepest nesting allowed (default {@link MAX_UPSTREAM_JSON_DEPTH}). */
    readonly max: number = MAX_UPSTREAM_JSON_DEPTH,
    /** Most arrays and objects allowed in the whole text (default: no bound; see {@link BYTES_PER_CONTAINER}). */
    readonly maxContainers: number = Number.POSITIVE_INFINITY,
  ) {}

  /** Feeds the next bytes of the text. @returns false once the nesting has gone past `max` or the count past `maxContainers` (then stays false) */
  feed(bytes: Uint8Array): boolean {
    if (this.exceededAt !== null) return false;
    let { depth, inString, escaped, containers } = this;
    const { max, maxContainers } = this;
    for (let i = 0; i < bytes.length; i += 1) {
      const byte = bytes[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
      } else if (byte === QUOTE) {
        inString = true;
      } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
        depth += 1;
        containers += 1;
        if (depth > max || containers > maxContainers) {
          this.exceededAt = this.offset + i;
          this.exceeded = depth > max ? 'depth' : 'containers';
          return false;
        }
      } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
        depth -= 1;
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    this.containers = containers;
    this.offset += bytes.length;
    return true;
  }
}
