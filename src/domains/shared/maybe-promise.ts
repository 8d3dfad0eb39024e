/**
 * A value at once, or a promise of it: what a read returns when the process cache may
 * already hold its answer (see `fetchMapped`, `FetchLoader.loadNow`). GraphQL execution
 * takes either from a resolver; a value lets it complete the field in the same turn.
 */
export type MaybePromise<T> = T | Promise<T>;

/**
 * `then` for a {@link MaybePromise}: `next(value)` at once for a value, `promise.then(next)`
 * for a promise. What a resolver that joins or filters a loaded answer returns, so that an
 * answer read at once stays at once.
 */
export function whenReady<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
