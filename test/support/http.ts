/**
 * Raw HTTP for end-to-end tests: requests to the gateway with status, headers and the
 * unparsed text (so tests can look for leaks), request bodies and query strings of typed
 * documents, one keep-alive connection's exchange, and readers of the simulator's log.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { connect } from 'node:net';
import { print } from 'graphql';
import { DEMO_KEYS, FIXTURE_CHARACTERS, createFixtureState } from '../../src/simulator';
import type { Simulator } from '../../src/simulator';
import type { FixtureCharacter } from '../../src/simulator/fixtures';
import type { Result } from './results';

/** An answer of the gateway, unparsed. */
export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** A raw request: method (default GET), path below the gateway's origin, headers, body text. */
export interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Sends one request to the gateway at `origin` (e.g. `http://127.0.0.1:1234`). */
export async function send(origin: string, request: RawRequest): Promise<RawResponse> {
  const response = await fetch(`${origin}${request.path}`, {
    method: request.method ?? 'GET',
    headers: request.headers ?? {},
    body: request.body,
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** Parses a response text as a GraphQL result (fails the test with the text when it is not JSON). */
export function parseResult(response: RawResponse): Result<Record<string, unknown>> {
  try {
    return JSON.parse(response.text) as Result<Record<string, unknown>>;
  } catch {
    throw new Error(`expected a JSON body, got HTTP ${response.status}: ${response.text}`);
  }
}

/** `Authorization: Bearer <key>` for a key (default the premium demo key). */
export function bearer(key: string = DEMO_KEYS.premium.key): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/** The JSON body of a POST /graphql for a typed document. */
export function operationBody<TData, TVariables>(
  document: TypedDocumentNode<TData, TVariables>,
  variables?: TVariables,
): { query: string; variables?: TVariables } {
  return variables === undefined ? { query: print(document) } : { query: print(document), variables };
}

/** The search string of a GET /graphql for a typed document (`?query=…&variables=…`). */
export function operationSearch<TData, TVariables>(
  document: TypedDocumentNode<TData, TVariables>,
  variables?: TVariables,
): string {
  const params = new URLSearchParams({ query: print(document) });
  if (variables !== undefined) params.set('variables', JSON.stringify(variables));
  return `?${params.toString()}`;
}

/** Every logged upstream request as `METHOD /path`, in arrival order. */
export function upstreamCalls(simulator: Simulator): string[] {
  return simulator.requests.map((request) => `${request.method} ${request.path}`);
}

/** Entries that occur more than once, each listed once. */
export function duplicates(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const value of values) {
    if (seen.has(value)) repeated.add(value);
    seen.add(value);
  }
  return [...repeated];
}

/** Character 1 of the fixtures: what the premium and basic demo keys read. */
export function mainCharacter(): FixtureCharacter {
  const character = createFixtureState().characters.find((c) => c.id === FIXTURE_CHARACTERS.main.id);
  if (character === undefined) throw new Error('fixture character 1 is missing');
  return character;
}

/** What happened on one keep-alive connection: the first response and what followed it. */
export interface ConnectionReuse {
  /** Status line and headers of the first response, lower-cased header names. */
  first: { status: number; headers: Record<string, string>; body: string };
  /** The second response's raw text, or null when the server closed the connection instead. */
  second: string | null;
}

/**
 * Sends `first` (a raw HTTP/1.1 request) on a fresh TCP connection. When the answer keeps the
 * connection alive, sends a `GET /healthz` on the same connection and returns what comes back
 * before the server closes it. Lets a test check that a response does not leave the
 * connection in a state where the next request gets no answer. Waits only on socket events.
 */
export function exchangeOnOneConnection(origin: string, first: string): Promise<ConnectionReuse> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let buffer = '';
    let firstResponse: ConnectionReuse['first'] | null = null;
    let sentSecond = false;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      socket.destroy();
      if (firstResponse === null)
        reject(
          new Error(`connection closed before a complete first response: ${JSON.stringify(buffer.slice(0, 200))}`),
        );
      else resolve({ first: firstResponse, second: sentSecond && buffer.length > 0 ? buffer : null });
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      if (firstResponse !== null) return;
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine = '', ...headerLines] = buffer.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? '0');
      if (buffer.length < end + 4 + length) return;
      firstResponse = {
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: buffer.slice(end + 4, end + 4 + length),
      };
      buffer = buffer.slice(end + 4 + length);
      if ((headers.connection ?? '').toLowerCase() === 'close') return; // the server ends the connection itself
      sentSecond = true;
      socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`);
    });
    // A reset or EPIPE ends the exchange like a close: the outcome is judged on what arrived.
    socket.on('error', finish);
    socket.on('close', finish);
    socket.write(first);
  });
}
