/**
 * One operation over each transport of the gateway, reduced to what the pipeline tests
 * compare: the error codes of the first answer (none when it has data and no errors).
 * HTTP POST and GET (with a preflight-forcing header, as a browser client sends it),
 * graphql-ws (the key in `connectionParams`) and graphql-sse (the key in the header).
 */
import { createClient as createSseClient } from 'graphql-sse';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { HttpStack } from '../support';
import { collect } from '../subscriptions/clients';
import type { Received } from '../subscriptions/clients';

/** The transports the pipeline serves. */
export const TRANSPORTS = ['http-post', 'http-get', 'graphql-ws', 'graphql-sse'] as const;

/** One of {@link TRANSPORTS}. */
export type TransportName = (typeof TRANSPORTS)[number];

/** A request: the GraphQL-over-HTTP parameters. */
export interface OperationBody {
  query?: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  extensions?: Record<string, unknown>;
  documentId?: string;
}

/** The first answer: its error codes and data. */
export interface Outcome {
  codes: string[];
  data: unknown;
  /** The first error's extensions. */
  extensions: Record<string, unknown> | undefined;
  /** Each error's code and path (null without one), in order. */
  errors: Array<{ code: string; path: ReadonlyArray<string | number> | null }>;
  /** The answer's own `extensions` (e.g. `upstream`). */
  resultExtensions: Record<string, unknown> | undefined;
}

/** An error as an answer carries it. */
type AnswerError = { extensions?: Record<string, unknown>; path?: ReadonlyArray<string | number> };

function outcomeOf(
  errors: ReadonlyArray<AnswerError> | undefined,
  data: unknown,
  resultExtensions?: Record<string, unknown>,
): Outcome {
  return {
    codes: (errors ?? []).map((error) => String(error.extensions?.code)),
    data,
    extensions: errors?.[0]?.extensions,
    errors: (errors ?? []).map((error) => ({ code: String(error.extensions?.code), path: error.path ?? null })),
    resultExtensions,
  };
}

/** The first message of a collected subscription, or the errors it ended with. */
async function firstOf(events: ReturnType<typeof collect>): Promise<Outcome> {
  const first = await Promise.race([
    events.next().then((message: Received) => ({ message })),
    events.ended.then((ended) => ({ ended })),
  ]);
  if ('message' in first) return outcomeOf(first.message.errors, first.message.data, first.message.extensions);
  if (Array.isArray(first.ended))
    return outcomeOf(first.ended as Array<{ extensions?: Record<string, unknown> }>, undefined);
  throw new Error(`the subscription ended without an answer: ${String(first.ended)}`);
}

/**
 * Sends one operation over a transport and returns its first answer.
 *
 * @param authorization - the raw `Authorization` value (or connection parameter), null for none
 */
export async function over(
  transport: TransportName,
  stack: HttpStack,
  body: OperationBody,
  authorization: string | null,
): Promise<Outcome> {
  const auth: Record<string, string> = authorization === null ? {} : { authorization };
  if (transport === 'http-post' || transport === 'http-get') {
    let response: Response;
    if (transport === 'http-post') {
      response = await fetch(stack.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify(body),
      });
    } else {
      const search = new URLSearchParams();
      for (const [name, value] of Object.entries(body)) {
        if (value !== undefined) search.set(name, typeof value === 'string' ? value : JSON.stringify(value));
      }
      response = await fetch(`${stack.endpoint}?${search.toString()}`, {
        headers: { 'apollo-require-preflight': 'true', ...auth },
      });
    }
    const answer = (await response.json()) as {
      data?: unknown;
      errors?: AnswerError[];
      extensions?: Record<string, unknown>;
    };
    return outcomeOf(answer.errors, answer.data, answer.extensions);
  }
  if (transport === 'graphql-ws') {
    const client = createClient({
      url: stack.endpoint.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: auth,
      retryAttempts: 0,
      lazy: true,
    });
    try {
      return await firstOf(collect((sink) => client.subscribe({ query: body.query ?? '', ...body }, sink)));
    } finally {
      await client.dispose();
    }
  }
  const client = createSseClient({ url: `${stack.origin}/graphql/stream`, headers: auth, retryAttempts: 0 });
  // graphql-sse reads only query, variables, operationName and extensions: a trusted
  // document is named the APQ way there.
  const { documentId, ...params } = body;
  const named =
    documentId === undefined
      ? params
      : { ...params, extensions: { ...params.extensions, persistedQuery: { version: 1, sha256Hash: documentId } } };
  try {
    return await firstOf(collect((sink) => client.subscribe({ query: '', ...named }, sink)));
  } finally {
    client.dispose();
  }
}
