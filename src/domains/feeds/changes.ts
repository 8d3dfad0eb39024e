/**
 * The one change shape of every subscribable resource: a record that appeared,
 * changed or disappeared between two polls, keyed by the record's identity. Each
 * domain's diff is {@link diffRecords} followed by the mapping to its GraphQL event.
 */

/**
 * One record between two polls: `before` null when it appeared, `after` null when it
 * disappeared, both set when it changed.
 */
export interface RecordChange<R> {
  /** The record's identity (an id, an item name, a slot). */
  readonly key: string;
  /** The record at the previous poll, or null when it is new. */
  readonly before: R | null;
  /** The record at this poll, or null when it is gone. */
  readonly after: R | null;
}

/**
 * The records of `after` that are new or differ from their namesake in `before` (in
 * the order of `after`), then the records of `before` that are gone (in their order).
 * Records are matched by `identity`; of several with one identity, the last counts.
 *
 * @param same - true when two versions of one record count as unchanged
 */
export function diffRecords<R>(
  before: readonly R[],
  after: readonly R[],
  identity: (record: R) => string,
  same: (previous: R, next: R) => boolean,
): RecordChange<R>[] {
  const old = new Map(before.map((record) => [identity(record), record] as const));
  const now = new Map(after.map((record) => [identity(record), record] as const));
  const changes: RecordChange<R>[] = [];
  for (const [key, record] of now) {
    const previous = old.get(key);
    if (previous === undefined) changes.push({ key, before: null, after: record });
    else if (!same(previous, record)) changes.push({ key, before: previous, after: record });
  }
  for (const [key, record] of old) {
    if (!now.has(key)) changes.push({ key, before: record, after: null });
  }
  return changes;
}
