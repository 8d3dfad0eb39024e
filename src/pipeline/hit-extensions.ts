/**
 * The extensions of a plain response-cache hit, the same for every hit of one age: one
 * frozen object per age and its JSON text made once. The result phase's `upstream` step
 * (result-steps.ts) gives them to such a hit; the HTTP result phase writes their text.
 */

/** What {@link emptyBut} reads of an operation's accounting. */
interface HitAccounting {
  readonly requests: number;
  readonly cacheHits: number;
  readonly coalesced: number;
  readonly stale: number;
  readonly staleFields: ReadonlyArray<unknown>;
  readonly maxAgeSeconds: number;
}

/** Most ages {@link hitExtensions} keeps an object for (then it starts afresh): a cache entry lives minutes. */
const HIT_AGES_MAX = 256;

/** The extensions of a plain response-cache hit of each age, and their JSON text ({@link hitExtensions}). */
const hitExtensionsByAge = new Map<number, Readonly<Record<string, unknown>>>();
/** The JSON text of each object of {@link hitExtensionsByAge} (a WeakMap: an age dropped from it lets its object go). */
const hitExtensionsTexts = new WeakMap<object, string>();

/**
 * Whether `accounting` says exactly what a response-cache hit of `age` seconds says and
 * nothing more: no upstream request, cache hit, coalesced or stale answer, no stale field,
 * its oldest answer `age` seconds old.
 */
export function emptyBut(accounting: HitAccounting, age: number): boolean {
  return (
    accounting.requests === 0 &&
    accounting.cacheHits === 0 &&
    accounting.coalesced === 0 &&
    accounting.stale === 0 &&
    accounting.staleFields.length === 0 &&
    accounting.maxAgeSeconds === age
  );
}

/**
 * The extensions the `upstream` step gives a response-cache hit of `age` seconds whose
 * accounting is otherwise empty ({@link emptyBut}): `{upstream: {requests: 0, cacheHits: 0,
 * coalesced: 0, stale: 0, maxAgeSeconds: age}, responseCache: {hit: true, ageSeconds: age}}`,
 * the members in the order the step writes them. One frozen object per age, shared by
 * every such hit: a later step that adds to the extensions copies them (as `warnings` does).
 */
export function hitExtensions(age: number): Readonly<Record<string, unknown>> {
  let extensions = hitExtensionsByAge.get(age);
  if (extensions === undefined) {
    extensions = Object.freeze({
      upstream: Object.freeze({ requests: 0, cacheHits: 0, coalesced: 0, stale: 0, maxAgeSeconds: age }),
      responseCache: Object.freeze({ hit: true, ageSeconds: age }),
    });
    hitExtensionsTexts.set(extensions, JSON.stringify(extensions));
    if (hitExtensionsByAge.size >= HIT_AGES_MAX) hitExtensionsByAge.clear();
    hitExtensionsByAge.set(age, extensions);
  }
  return extensions;
}

/**
 * `JSON.stringify(extensions)`: made once for a plain response-cache hit's extensions
 * (the `upstream` step's object of its age), serialized for any other.
 */
export function extensionsText(extensions: Readonly<Record<string, unknown>>): string {
  return hitExtensionsTexts.get(extensions) ?? JSON.stringify(extensions);
}
