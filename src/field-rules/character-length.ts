/**
 * The length of a string as the upstream counts it. The StateV API is a NestJS service
 * validating with class-validator, whose `@MaxLength`/`@Length` call validator.js's
 * `isLength`: UTF-16 code units, minus one per surrogate pair (an emoji outside the
 * Basic Multilingual Plane counts once) and minus each variation selector U+FE0E/U+FE0F
 * (emoji presentation sequences). Combining marks (U+0300 and the like) count as
 * characters of their own, as there.
 *
 * When to use: for every bound on a string's length that the upstream enforces.
 */
export function characterLength(text: string): number {
  const surrogatePairs = text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0;
  const presentationSelectors = text.match(/[\uFE0E\uFE0F]/g)?.length ?? 0;
  return text.length - surrogatePairs - presentationSelectors;
}
