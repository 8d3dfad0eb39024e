/**
 * Size limits checked on a request's text before anything parses or walks it, so that
 * no request can make a parser or a walker recurse deeper than the call stack allows
 * (graphql-js's parser and JSON serialization both recurse per nesting level).
 */

/** Most tokens a GraphQL document may have (graphql-js `parse` option `maxTokens`); the introspection query has about 350. */
export const MAX_DOCUMENT_TOKENS = 10_000;

/** Deepest nesting of `{`, `(` and `[` in a GraphQL document's text. */
export const MAX_DOCUMENT_NESTING = 128;

/** Deepest nesting of objects and arrays in a request's variables; the schema's inputs need 3. */
export const MAX_VARIABLES_NESTING = 64;

/**
 * The deepest nesting of brackets (`{`, `(`, `[`) in a GraphQL document or JSON text,
 * ignoring strings (also GraphQL block strings) and, for GraphQL, `#` comments. Stops
 * counting once past `limit` (returns `limit + 1`). Linear, no recursion.
 */
export function textNesting(text: string, limit: number, graphql: boolean): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      if (graphql && text.startsWith('"""', i)) {
        const end = text.indexOf('"""', i + 3);
        if (end < 0) return deepest;
        i = end + 2;
        continue;
      }
      for (i += 1; i < text.length && text.charCodeAt(i) !== 0x22; i += 1) {
        if (text.charCodeAt(i) === 0x5c /* \ */) i += 1;
      }
    } else if (graphql && c === 0x23 /* # */) {
      while (i < text.length && text.charCodeAt(i) !== 0x0a && text.charCodeAt(i) !== 0x0d) i += 1;
    } else if (c === 0x7b || c === 0x28 || c === 0x5b) {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 0x7d || c === 0x29 || c === 0x5d) {
      depth = Math.max(0, depth - 1);
    }
  }
  return deepest;
}

/** How big a parsed JSON value is: its nesting depth and (about) its size in bytes as JSON. */
export interface JsonMeasure {
  /** Deepest nesting of objects and arrays (a scalar is 0), or past the limit when measuring stopped early. */
  depth: number;
  /** About the bytes of its JSON text (escapes not counted), or past the limit when measuring stopped early. */
  bytes: number;
}

/**
 * Measures a parsed JSON value without serializing it (an explicit stack, no recursion),
 * stopping early once past `maxDepth` or `maxBytes`: the caller then refuses it.
 */
export function measureJson(value: unknown, maxDepth: number, maxBytes: number): JsonMeasure {
  let bytes = 0;
  let deepest = 0;
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop();
    if (!item) break;
    const current = item.value;
    if (typeof current === 'string') bytes += Buffer.byteLength(current) + 2;
    else if (typeof current === 'number' || typeof current === 'boolean') bytes += String(current).length;
    else if (current === null || current === undefined) bytes += 4;
    else if (typeof current === 'object') {
      const depth = item.depth + 1;
      deepest = Math.max(deepest, depth);
      bytes += 2;
      if (Array.isArray(current)) {
        for (const element of current as unknown[]) stack.push({ value: element, depth });
        bytes += current.length;
      } else {
        for (const [key, inner] of Object.entries(current)) {
          bytes += Buffer.byteLength(key) + 4;
          stack.push({ value: inner, depth });
        }
      }
    }
    if (deepest > maxDepth || bytes > maxBytes) break;
  }
  return { depth: deepest, bytes };
}

/** A request refused for its sizes: the HTTP status, the `extensions.code` and what is wrong. */
export interface ShapeRefusal {
  /** 413 for variables over the byte limit, else 400. */
  readonly status: 400 | 413;
  /** `BAD_REQUEST` (variables) or `GRAPHQL_PARSE_FAILED` (the document). */
  readonly code: 'BAD_REQUEST' | 'GRAPHQL_PARSE_FAILED';
  /** What is wrong, naming the limit. */
  readonly message: string;
}

/**
 * The last document text found within {@link MAX_DOCUMENT_NESTING}: a client sends the
 * same document again and again, and the same text nests the same (compared, not walked again).
 */
let lastShallowDocument: string | null = null;

/**
 * Checks the document text and the variables of a request against the limits, without
 * parsing the document: `variables` over `maxVariablesBytes` (413), nested deeper than
 * {@link MAX_VARIABLES_NESTING}, or a document nested deeper than
 * {@link MAX_DOCUMENT_NESTING} (400). The variables are only measured, never serialized.
 *
 * @param query - the document text (anything else is left to the parser's own error)
 * @param variables - parsed JSON, or JSON text (a GET query string's)
 * @param limits - `maxVariablesBytes`, bytes (`MAX_VARIABLES_BYTES`)
 */
export function checkRequestShape(
  query: unknown,
  variables: unknown,
  limits: { readonly maxVariablesBytes: number },
): ShapeRefusal | null {
  if (typeof variables === 'string') {
    if (Buffer.byteLength(variables) > limits.maxVariablesBytes) return variablesTooLarge(limits.maxVariablesBytes);
    if (textNesting(variables, MAX_VARIABLES_NESTING, false) > MAX_VARIABLES_NESTING) return variablesTooDeep();
  } else if (variables !== undefined && variables !== null) {
    const measured = measureJson(variables, MAX_VARIABLES_NESTING, limits.maxVariablesBytes);
    if (measured.bytes > limits.maxVariablesBytes) return variablesTooLarge(limits.maxVariablesBytes);
    if (measured.depth > MAX_VARIABLES_NESTING) return variablesTooDeep();
  }
  if (typeof query !== 'string' || query === lastShallowDocument) return null;
  if (textNesting(query, MAX_DOCUMENT_NESTING, true) > MAX_DOCUMENT_NESTING) {
    return {
      status: 400,
      code: 'GRAPHQL_PARSE_FAILED',
      message: `The document nests brackets deeper than ${MAX_DOCUMENT_NESTING} levels.`,
    };
  }
  lastShallowDocument = query;
  return null;
}

function variablesTooLarge(maxVariablesBytes: number): ShapeRefusal {
  return { status: 413, code: 'BAD_REQUEST', message: `The variables exceed ${maxVariablesBytes} bytes.` };
}

function variablesTooDeep(): ShapeRefusal {
  return {
    status: 400,
    code: 'BAD_REQUEST',
    message: `The variables are nested deeper than ${MAX_VARIABLES_NESTING} levels.`,
  };
}
