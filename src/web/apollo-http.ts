import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap } from '@apollo/server';
import type { ApolloServer, BaseContext } from '@apollo/server';

/**
 * The bridge between `node:http` and Apollo Server 5's `executeHTTPGraphQLRequest`:
 * what an Apollo integration package does, in one small module, so the gateway and
 * the benchmark's bare-Apollo floor share the same HTTP layer.
 */

/** The request body was larger than allowed (the caller answers 413 and closes). */
export class BodyTooLargeError extends Error {}

/** Writes a JSON response with a Content-Length. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) throw new BodyTooLargeError();
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Reads a GraphQL request's headers and body: JSON bodies parsed (Apollo expects an
 * object), other bodies as text (Apollo explains what it cannot use).
 *
 * @throws BodyTooLargeError past `maxBodyBytes`.
 */
export async function readGraphQLRequest(req: IncomingMessage, maxBodyBytes: number): Promise<{ headers: HeaderMap; body: unknown } | 'invalid-json'> {
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  if (req.method !== 'POST') return { headers, body: undefined };
  const text = await readBody(req, maxBodyBytes);
  if (/application\/(graphql-response\+)?json/i.test(headers.get('content-type') ?? '') && text !== '') {
    try {
      return { headers, body: JSON.parse(text) as unknown };
    } catch {
      return 'invalid-json';
    }
  }
  return { headers, body: text };
}

/** Runs one HTTP GraphQL request on Apollo and writes its response (single or incremental). */
export async function executeOnApollo<TContext extends BaseContext>(
  apollo: ApolloServer<TContext>,
  req: IncomingMessage,
  res: ServerResponse,
  request: { headers: HeaderMap; body: unknown; search: string; context: () => Promise<TContext> },
): Promise<void> {
  const response = await apollo.executeHTTPGraphQLRequest({
    httpGraphQLRequest: { method: req.method ?? 'GET', headers: request.headers, search: request.search, body: request.body },
    context: request.context,
  });
  const outHeaders: Record<string, string> = {};
  for (const [name, value] of response.headers) outHeaders[name] = value;
  res.writeHead(response.status ?? 200, outHeaders);
  if (response.body.kind === 'complete') {
    res.end(response.body.string);
    return;
  }
  for await (const chunk of response.body.asyncIterator) res.write(chunk);
  res.end();
}
