import { createHash, hash } from 'node:crypto';
import type { Hash } from 'node:crypto';

/** Strings at least this long go to the hash as they are, never copied into a text of the variables. */
const DIRECT_STRING_LENGTH = 1024;

/** Text gathered before it goes to the hash in one update (fewer native calls for many small values). */
const PENDING_LENGTH = 8192;

/** Deepest nesting walked; deeper (a cycle, or past any request's bound) gives no digest. */
const MAX_DEPTH = 256;

/** `String.prototype.isWellFormed` (ES2024, in every Node the gateway supports; not in the ES2022 library types). */
type WellFormedCheck = string & { isWellFormed(): boolean };

/** Digest of each variables object already digested, by the object: a request's checks and cache keys share one. */
const digests = new WeakMap<object, string | null>();

/**
 * Feeds a value to a sha256, in a self-delimiting form: each value a type letter, strings
 * and JSON fallbacks with their length, arrays and objects with their member counts, so two
 * values give the same bytes only when they are the same JSON data. Big strings are handed
 * to the hash as they are: no copy of a 60 KB variable is made (`JSON.stringify` copied it,
 * escaping each character).
 */
class DigestWriter {
  private pending = '';
  /** Made at the first long string or once the text grows long; short variables are hashed in one call. */
  private hash: Hash | null = null;

  /** Adds one value; throws what `JSON.stringify` throws for a value it cannot write, or on nesting past {@link MAX_DEPTH}. */
  value(value: unknown, depth: number): void {
    if (depth > MAX_DEPTH) throw new RangeError('variables nested too deep to digest');
    switch (typeof value) {
      case 'string':
        this.string('s', value);
        return;
      case 'number':
        this.text(`n${String(value)};`);
        return;
      case 'boolean':
        this.text(value ? 't' : 'f');
        return;
      case 'undefined':
        this.text('u');
        return;
      case 'object':
        if (value === null) {
          this.text('z');
          return;
        }
        if (Array.isArray(value)) {
          this.text(`a${value.length}[`);
          for (const element of value as unknown[]) this.value(element, depth + 1);
          return;
        }
        if (isPlainData(value)) {
          const names = Object.keys(value);
          this.text(`o${names.length}{`);
          for (const name of names) {
            this.string('k', name);
            this.value((value as Record<string, unknown>)[name], depth + 1);
          }
          return;
        }
        break;
      default:
        break;
    }
    // Anything else (a Date, an object with toJSON, a bigint…): its JSON, as before.
    const json: unknown = JSON.stringify(value);
    this.string('j', typeof json === 'string' ? json : '');
  }

  /** The digest of what was added (base64url). */
  end(): string {
    if (this.hash === null) return hash('sha256', this.pending, 'base64url');
    if (this.pending !== '') this.hash.update(this.pending, 'utf8');
    return this.hash.digest('base64url');
  }

  /** A string with its tag and length; a long one straight to the hash (UTF-8, lossless when well formed, else its JSON). */
  private string(tag: string, value: string): void {
    if (!(value as WellFormedCheck).isWellFormed()) {
      const json = JSON.stringify(value);
      this.text(`${tag === 's' ? 'w' : 'W'}${json.length}:`);
      this.text(json);
      return;
    }
    this.text(`${tag}${value.length}:`);
    if (value.length < DIRECT_STRING_LENGTH) {
      this.text(value);
      return;
    }
    this.flush().update(value, 'utf8');
  }

  /** The hash, with the text gathered so far added to it. */
  private flush(): Hash {
    this.hash ??= createHash('sha256');
    if (this.pending !== '') this.hash.update(this.pending, 'utf8');
    this.pending = '';
    return this.hash;
  }

  private text(text: string): void {
    this.pending += text;
    if (this.pending.length >= PENDING_LENGTH) this.flush();
  }
}

/** A plain object (`{}` or `Object.create(null)`, no `toJSON`): written member by member. */
function isPlainData(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && !('toJSON' in value);
}

/** The digest of no variables (as of `{}`). */
const EMPTY_DIGEST = digestOf({});

function digestOf(value: unknown): string {
  const writer = new DigestWriter();
  writer.value(value, 0);
  return writer.end();
}

/**
 * sha256 (base64url) of a request's variables in a self-delimiting form of their JSON data
 * (see `DigestWriter`: equal data, equal digest; long strings hashed in place, never
 * serialized into a copy), computed once per variables object: the memos of the operation
 * phase (grants, bounds, cost) and the response cache's key all name the same object, so
 * large variables are read and hashed once per request, not once per check. Null when
 * they cannot be serialized (a cycle, a BigInt). Remembered by the object's identity (a
 * `WeakMap`: it goes with the request), so the object must not be changed once digested;
 * the gateway replaces variables, never edits them.
 *
 * @param variables - the request's variables (undefined: none, the digest of `{}`)
 */
export function variablesDigest(variables: Readonly<Record<string, unknown>> | undefined): string | null {
  if (variables === undefined) return EMPTY_DIGEST;
  const known = digests.get(variables);
  if (known !== undefined) return known;
  let digest: string | null;
  try {
    digest = digestOf(variables);
  } catch {
    digest = null;
  }
  digests.set(variables, digest);
  return digest;
}
