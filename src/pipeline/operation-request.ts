/**
 * The operation a request asks for, as the `parse`, `validate` and `operation` phases read
 * it: from a POST body or subscribe payload, or from a GET query string.
 */
import type { RequestParameters } from './public-site';

/** A request's query text, operation name, variables and extensions (see {@link operationRequest}). */
export interface OperationRequest {
  /** The query text, when the request has one. */
  readonly query: string | undefined;
  /** The operation to run, when the request names one. */
  readonly operationName: string | undefined;
  /** The variables, when they are an object. */
  readonly variables: Record<string, unknown> | undefined;
  /** The extensions, when they are an object (an APQ request's `persistedQuery`). */
  readonly extensions: Record<string, unknown> | undefined;
}

/** A JSON object of a GET query string (its variables or extensions), when it is one. */
function searchObject(text: string | null): Record<string, unknown> | undefined {
  if (text === null) return undefined;
  try {
    const variables = JSON.parse(text) as unknown;
    return variables && typeof variables === 'object' && !Array.isArray(variables)
      ? (variables as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** `value` when it is an object. */
function objectOf(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
}

/** The operation `parameters` ask for: a body object's fields, else the query string's (`query`, `operationName`, `variables`, `extensions`). */
export function operationRequest(parameters: RequestParameters): OperationRequest {
  const { body, search } = parameters;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const fields = body as Record<string, unknown>;
    return {
      query: typeof fields.query === 'string' ? fields.query : undefined,
      operationName: typeof fields.operationName === 'string' ? fields.operationName : undefined,
      variables: objectOf(fields.variables),
      extensions: objectOf(fields.extensions),
    };
  }
  const params = new URLSearchParams(search);
  return {
    query: params.get('query') ?? undefined,
    operationName: params.get('operationName') ?? undefined,
    variables: searchObject(params.get('variables')),
    extensions: searchObject(params.get('extensions')),
  };
}
