/**
 * Narrowing helpers for upstream JSON, which enters the gateway as `unknown`.
 *
 * A tolerant reader: the real upstream's shapes drift from its reference (see
 * docs/upstream-traffic.md, "Shape drift"). Strict helpers (`string`, `stringish`,
 * `number`, ...) are for what identifies a record or holds a document together: they
 * throw a {@link ShapeError} naming the path, and `mapResponse` turns that into an
 * `UPSTREAM_ERROR` for the endpoint. Tolerant helpers (`text`, `numberOr`,
 * `booleanOr`, `dateOr`, `optional*`, `arrayOr`) never throw: a missing or
 * mistyped value becomes null (nullable fields) or a documented default ("" for
 * text, 0 for numbers, false for flags, 1970-01-01T00:00:00Z for dates, [] for
 * lists), and the drift is noted with {@link noteDrift}. Unknown extra fields are
 * ignored. Mappers use nothing else to read JSON.
 */
import { UpstreamError } from '../../errors/gateway-error';
import type { Endpoint } from '../../upstream/endpoints';
import { emitShapeDrift } from './shape-drift';

/** Drifted fields of the mapping that runs now (mappers are synchronous), or null outside one. */
let driftSink: Set<string> | null = null;

/**
 * Notes that the current response differs from the reference at `field` (a path
 * without list indices, e.g. `neededItems.name`). Outside {@link mapResponse} or
 * {@link collectDrift} it does nothing.
 */
export function noteDrift(field: string): void {
  driftSink?.add(field.replace(/\[\d+\]/g, '').replace(/^\./, ''));
}

/**
 * Runs a mapper and returns its value with the fields it found drifted (each once).
 * Tests use it; {@link mapResponse} uses it and reports the drift.
 */
export function collectDrift<T>(map: () => T): { value: T; drift: string[] } {
  const outer = driftSink;
  const sink = new Set<string>();
  driftSink = sink;
  try {
    return { value: map(), drift: [...sink] };
  } finally {
    driftSink = outer;
  }
}

/** Midnight 1970-01-01 UTC: the documented default of a required date the upstream left out. */
export const MISSING_DATE_DEFAULT = 0;

/** The upstream answered with a value of an unexpected shape. */
export class ShapeError extends Error {
  constructor(
    /** Where in the body: a dotted path such as `data.items[2].amount` (empty for the body itself). */
    readonly path: string,
    expected: string,
    actual: unknown,
  ) {
    super(`${path || 'body'} should be ${expected}, got ${describe(actual)}`);
    this.name = 'ShapeError';
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  // Never the text itself: an upstream may echo a key or secret in any value.
  return typeof value === 'string' ? `a string of ${value.length} characters` : typeof value;
}

/** A JSON object, read field by field with a path for error messages. */
export class JsonObject {
  private constructor(
    private readonly value: Readonly<Record<string, unknown>>,
    /** Where this object sits in the body, for error messages (empty for the body itself). */
    readonly path: string,
  ) {}

  /** Narrows `value` to an object. */
  static of(value: unknown, path = ''): JsonObject {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new ShapeError(path, 'an object', value);
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

  /** A string, or null when missing or null; a number or boolean is turned into text, anything else is null (both drift). */
  optionalString(key: string): string | null {
    if (!this.has(key)) return null;
    const v = this.value[key];
    if (typeof v === 'string') return v;
    noteDrift(this.at(key));
    return typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;
  }

  /** Required text: a number or boolean is turned into text; missing or other: `fallback` (default ""). Never throws. */
  text(key: string, fallback = ''): string {
    return this.optionalString(key) ?? this.drifted(key, fallback);
  }

  /** Notes the drift of a key and returns the fallback. */
  private drifted<T>(key: string, fallback: T): T {
    noteDrift(this.at(key));
    return fallback;
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

  /** A number, or null when missing or null; a numeric string is read (drift), anything else is null (drift). */
  optionalNumber(key: string): number | null {
    if (!this.has(key)) return null;
    const v = this.value[key];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    noteDrift(this.at(key));
    if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
    return null;
  }

  /** A required number that falls back to `fallback` (default 0) when missing or mistyped. Never throws. */
  numberOr(key: string, fallback = 0): number {
    return this.optionalNumber(key) ?? this.drifted(key, fallback);
  }

  /** Like {@link numberOr}, rounded to an integer (a fraction is drift). */
  integerOr(key: string, fallback = 0): number {
    const v = this.numberOr(key, fallback);
    if (Number.isInteger(v)) return v;
    noteDrift(this.at(key));
    return Math.round(v);
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

  /** A boolean, or null when missing or null; `"true"`/`"false"`, 1/0 are read (drift), anything else is null (drift). */
  optionalBoolean(key: string): boolean | null {
    if (!this.has(key)) return null;
    const v = this.value[key];
    if (typeof v === 'boolean') return v;
    noteDrift(this.at(key));
    if (v === 'true' || v === 1) return true;
    if (v === 'false' || v === 0) return false;
    return null;
  }

  /** A required flag that falls back to `fallback` (default false) when missing or mistyped. Never throws. */
  booleanOr(key: string, fallback = false): boolean {
    return this.optionalBoolean(key) ?? this.drifted(key, fallback);
  }

  /** A required ISO 8601 date-time string, as a Date. */
  date(key: string): Date {
    return toDate(this.string(key), this.at(key));
  }

  /** A date-time, or null when missing or null; an unreadable value is null (drift). */
  optionalDate(key: string): Date | null {
    if (!this.has(key)) return null;
    const v = this.value[key];
    const date = typeof v === 'string' || typeof v === 'number' ? new Date(v) : null;
    if (date && !Number.isNaN(date.getTime())) {
      if (typeof v !== 'string') noteDrift(this.at(key));
      return date;
    }
    noteDrift(this.at(key));
    return null;
  }

  /** A required date-time that falls back to 1970-01-01T00:00:00Z when missing or unreadable. Never throws. */
  dateOr(key: string): Date {
    return this.optionalDate(key) ?? this.drifted(key, new Date(MISSING_DATE_DEFAULT));
  }

  /** A required nested object. */
  object(key: string): JsonObject {
    return JsonObject.of(this.value[key], this.at(key));
  }

  /** A required array, each element mapped with its own path. */
  array<T>(key: string, map: (element: unknown, path: string) => T): T[] {
    return mapArray(this.value[key], map, this.at(key));
  }

  /** An array, or [] when missing or not an array (drift). */
  arrayOr<T>(key: string, map: (element: unknown, path: string) => T): T[] {
    if (!Array.isArray(this.value[key])) return this.drifted(key, []);
    return this.array(key, map);
  }

  /** A nested object, or an empty one when missing or not an object (drift): its tolerant reads then fall back. */
  objectOr(key: string): JsonObject {
    const v = this.value[key];
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return this.object(key);
    noteDrift(this.at(key));
    return new JsonObject({}, this.at(key));
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
 * `UPSTREAM_ERROR` naming the endpoint and the path of the bad value. Each drifted
 * field is reported once per response to the shape-drift listeners (metrics, log).
 */
export function mapResponse<T>(endpoint: Endpoint, body: unknown, map: (body: unknown) => T): T {
  return mapResponseDrift(endpoint, body, map).value;
}

/** {@link mapResponse}, also returning the drifted fields it reported (to report them again when the result is reused). */
export function mapResponseDrift<T>(
  endpoint: Endpoint,
  body: unknown,
  map: (body: unknown) => T,
): { value: T; drift: readonly string[] } {
  try {
    const result = collectDrift(() => map(body));
    for (const field of result.drift) emitShapeDrift(endpoint.route, field);
    return result;
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
