/**
 * Readers of GraphQL results for tests: error codes and paths, `extensions.upstream`
 * and `extensions.stale`, nulls, and a MockAgent reply in the upstream's error shape.
 */
import type { GraphQLFormattedError } from 'graphql';

/** A GraphQL result with typed data. */
export interface Result<TData> {
  data?: TData | null;
  errors?: readonly GraphQLFormattedError[];
  extensions?: Record<string, unknown>;
}

/** The `extensions.code` of each error, in order. */
export function codes(result: Result<unknown>): string[] {
  return (result.errors ?? []).map((error) => String(error.extensions?.code));
}

/**
 * The request counts of a result's `extensions.upstream` (fails when it is missing, or
 * when its `maxAgeSeconds` is not a whole number of seconds: every answer carries one).
 */
export function upstreamOf(result: Result<unknown>): {
  requests: number;
  cacheHits: number;
  coalesced: number;
  stale: number;
} {
  const upstream = result.extensions?.upstream;
  if (!upstream || typeof upstream !== 'object') throw new Error(`no extensions.upstream in ${JSON.stringify(result)}`);
  const { maxAgeSeconds, ...counts } = upstream as {
    requests: number;
    cacheHits: number;
    coalesced: number;
    stale: number;
    maxAgeSeconds?: unknown;
  };
  if (typeof maxAgeSeconds !== 'number' || !Number.isInteger(maxAgeSeconds) || maxAgeSeconds < 0) {
    throw new Error(
      `extensions.upstream.maxAgeSeconds is not a whole number of seconds in ${JSON.stringify(upstream)}`,
    );
  }
  return counts;
}

/** One `extensions.stale` entry. */
export interface StaleEntry {
  path: Array<string | number>;
  endpoint: string;
  ageSeconds: number;
  reason: string;
}

/** The `extensions.stale` of a result, or `[]`. */
export function staleOf(result: Result<unknown>): StaleEntry[] {
  return (result.extensions?.stale as StaleEntry[] | undefined) ?? [];
}

/** The error at a response path, e.g. `['factory', 'counter']`. */
export function errorAt(
  result: Result<unknown>,
  path: ReadonlyArray<string | number>,
): { code: unknown; extensions: Record<string, unknown> } | undefined {
  const error = (result.errors ?? []).find((e) => JSON.stringify(e.path) === JSON.stringify(path));
  return error ? { code: error.extensions?.code, extensions: error.extensions ?? {} } : undefined;
}

/** The errors of a result whose `path` starts with the given segments. */
export function errorsAt(result: Result<unknown>, ...prefix: (string | number)[]): GraphQLFormattedError[] {
  return (result.errors ?? []).filter((error) => prefix.every((segment, i) => error.path?.[i] === segment));
}

/** Paths of every `null` anywhere in a value. */
export function nullPaths(value: unknown, path = '$'): string[] {
  if (value === null) return [path];
  if (Array.isArray(value)) return value.flatMap((element, index) => nullPaths(element, `${path}[${index}]`));
  if (typeof value === 'object' && value !== undefined) {
    return Object.entries(value as Record<string, unknown>).flatMap(([key, element]) =>
      nullPaths(element, `${path}.${key}`),
    );
  }
  return [];
}

/** Narrows an unknown JSON value to an object (fails the test otherwise). */
export function asObject(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`expected an object, got ${JSON.stringify(value)}`);
  }
  return value as Record<string, unknown>;
}

/** Narrows an unknown JSON value to an array of objects (fails the test otherwise). */
export function asObjects(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value)) throw new Error(`expected an array, got ${JSON.stringify(value)}`);
  return value.map(asObject);
}

/** The upstream's JSON error body with JSON headers, as a MockAgent reply callback (`.reply(upstreamError(…))`). */
export function upstreamError(
  statusCode: number,
  message: string,
  error: string,
  headers: Record<string, string> = {},
): () => { statusCode: number; data: string; responseOptions: { headers: Record<string, string> } } {
  return () => ({
    statusCode,
    data: JSON.stringify({ statusCode, message, error }),
    responseOptions: { headers: { 'content-type': 'application/json; charset=utf-8', ...headers } },
  });
}
