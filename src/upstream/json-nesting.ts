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
 * `textNesting` (src/graph/document-limits.ts) makes of a request's text before graphql-js
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
 */

/** Deepest nesting of arrays and objects accepted in an upstream JSON answer; deeper is `UPSTREAM_ERROR`. */
export const MAX_UPSTREAM_JSON_DEPTH = 64;

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
  /** Byte offset (from the start of the text) of the bracket that went past `max`, once one has. */
  exceededAt: number | null = null;

  constructor(
    /** Deepest nesting allowed (default {@link MAX_UPSTREAM_JSON_DEPTH}). */
    readonly max: number = MAX_UPSTREAM_JSON_DEPTH,
  ) {}

  /** Feeds the next bytes of the text. @returns false once the nesting has gone past `max` (then stays false) */
  feed(bytes: Uint8Array): boolean {
    if (this.exceededAt !== null) return false;
    let { depth, inString, escaped } = this;
    const max = this.max;
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
        if (depth > max) {
          this.exceededAt = this.offset + i;
          return false;
        }
      } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
        depth -= 1;
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    this.offset += bytes.length;
    return true;
  }
}
