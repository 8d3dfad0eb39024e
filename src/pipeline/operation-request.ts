/**
 * The operation a request asks for, as the `parse`, `validate` and `operation` phases read
 * it: from a POST body or subscribe payload, or from a GET query string.
 */
import type { RequestParameters } from './public-site';

/** A request's query text, operation name and variables (see {@link operationRequest}). */
export interface OperationRequest {
  /** The query text, when the request has one. */
  readonly query: string | undefined;
  /** The operation to run, when the request names one. */
  readonly operationName: string | undefined;
  /** The variables, when they are an object. */
  readonly variables: Record<string, unknown> | undefined;
}

/** The variables of a GET query string, when they are a JSON object. */
function searchVariables(text: string | null): Record<string, unknown> | undefined {
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

/** The operation `parameters` ask for: a body object's fields, else the query string's (`query`, `operationName`, `variables`). */
export function operationRequest(parameters: RequestParameters): OperationRequest {
  const { body, search } = parameters;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const fields = body as Record<string, unknown>;
    return {
      query: typeof fields.query === 'string' ? fields.query : undefined,
      operationName: typeof fields.operationName === 'string' ? fields.operationName : undefined,
      variables:
        fields.variables && typeof fields.variables === 'object'
          ? (fields.variables as Record<string, unknown>)
          : undefined,
    };
  }
  const params = new URLSearchParams(search);
  return {
    query: params.get('query') ?? undefined,
    operationName: params.get('operationName') ?? undefined,
    variables: searchVariables(params.get('variables')),
  };
}
