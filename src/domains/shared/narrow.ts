/**
 * Narrowing helpers for upstream JSON, which enters the gateway as `unknown`.
 *
 * Each helper either returns a value of the promised type or throws a
 * {@link ShapeError} naming the path of the offending value; `mapResponse` turns that
 * into an `UPSTREAM_ERROR` for the endpoint. Mappers use nothing else to read JSON.
 */
import { UpstreamError } from '../../errors/gateway-error';
import type { Endpoint } from '../../upstream/endpoints';

/** The upstream answered with a value of an unexpected shape. */
export class ShapeError extends Error {
  constructor(readonly path: string, expected: string, actual: unknown) {
    super(`${path || 'body'} should be ${expected}, got ${describe(actual)}`);
    this.name = 'ShapeError';
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `"${value.slice(0, 40)}"` : typeof value;
}

/** A JSON object, read field by field with a path for error messages. */
export class JsonObject {
  private constructor(
    private readonly value: Readonly<Record<string, unknown>>,
    readonly path: string,
  ) {}

  /** Narrows `value` to an object. */
  static of(value: unknown, path = ''): JsonObject {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ShapeError(path, 'an object', value);
    return new JsonObject(value as Record<string, unknown>, path);
  }

  private at(key: string): string {
    return this.path ? `${this.path}.${key}` : key;
  }

  /** True when the key is present with a value other than null. */
  has(key: string): boolean {
    return this.value[key] !== undefined && this.value[key] !== null;
  }

  /** The raw value of a key, still unknown. */
  raw(key: string): unknown {
    return this.value[key];
  }

  /** A required string. */
  string(key: string): string {
    const v = this.value[key];
    if (typeof v !== 'string') throw new ShapeError(this.at(key), 'a string', v);
    return v;
  }

  /** A string, or null when missing or null. */
  optionalString(key: string): string | null {
    return this.has(key) ? this.string(key) : null;
  }

  /** A required string that the upstream sometimes sends as a number (ids, VBANs). */
  stringish(key: string): string {
    const v = this.value[key];
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    return this.string(key);
  }

  /** A required finite number. */
  number(key: string): number {
    const v = this.value[key];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new ShapeError(this.at(key), 'a number', v);
    return v;
  }

  /** A number, or null when missing or null. */
  optionalNumber(key: string): number | null {
    return this.has(key) ? this.number(key) : null;
  }

  /** A required integer. */
  integer(key: string): number {
    const v = this.number(key);
    if (!Number.isInteger(v)) throw new ShapeError(this.at(key), 'an integer', v);
    return v;
  }

  /** A required boolean. */
  boolean(key: string): boolean {
    const v = this.value[key];
    if (typeof v !== 'boolean') throw new ShapeError(this.at(key), 'a boolean', v);
    return v;
  }

  /** A boolean, or null when missing or null. */
  optionalBoolean(key: string): boolean | null {
    return this.has(key) ? this.boolean(key) : null;
  }

  /** A required ISO 8601 date-time string, as a Date. */
  date(key: string): Date {
    return toDate(this.string(key), this.at(key));
  }

  /** A date-time, or null when missing or null. */
  optionalDate(key: string): Date | null {
    return this.has(key) ? this.date(key) : null;
  }

  /** A required nested object. */
  object(key: string): JsonObject {
    return JsonObject.of(this.value[key], this.at(key));
  }

  /** A required array, each element mapped with its own path. */
  array<T>(key: string, map: (element: unknown, path: string) => T): T[] {
    return mapArray(this.value[key], map, this.at(key));
  }
}

/** Narrows `value` to an array and maps each element, with `path[i]` in errors. */
export function mapArray<T>(value: unknown, map: (element: unknown, path: string) => T, path = ''): T[] {
  if (!Array.isArray(value)) throw new ShapeError(path, 'an array', value);
  return value.map((element: unknown, index) => map(element, `${path}[${index}]`));
}

function toDate(text: string, path: string): Date {
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw new ShapeError(path, 'an ISO 8601 date-time', text);
  return date;
}

/**
 * Runs a mapper over an endpoint's body; a {@link ShapeError} becomes an
 * `UPSTREAM_ERROR` naming the endpoint and the path of the bad value.
 */
export function mapResponse<T>(endpoint: Endpoint, body: unknown, map: (body: unknown) => T): T {
  try {
    return map(body);
  } catch (error) {
    if (error instanceof ShapeError) {
      throw new UpstreamError('UPSTREAM_ERROR', endpoint, {
        status: 200,
        endpoint: endpoint.route,
        message: `unexpected response shape: ${error.message}`,
      });
    }
    throw error;
  }
}
