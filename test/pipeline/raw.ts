/**
 * One request over each transport, answered as raw text: what the refusal tests compare
 * byte for byte. HTTP POST (the body), graphql-sse (a POST in distinct connections mode:
 * the body of an answer before the stream, else the first `next` event's data) and
 * graphql-ws (a raw `ws` socket: the first `next` or `error` message's payload).
 */
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import type { HttpStack } from '../support';

/** The transports that write refusals. */
export const RAW_TRANSPORTS = ['http', 'graphql-sse', 'graphql-ws'] as const;

/** One of {@link RAW_TRANSPORTS}. */
export type RawTransport = (typeof RAW_TRANSPORTS)[number];

/** The first answer as sent: how it was framed, and its payload's text. */
export interface RawAnswer {
  /** `body`: an HTTP body; `next` and `error`: a graphql-ws message or graphql-sse event. */
  readonly frame: 'body' | 'next' | 'error';
  /** The HTTP status (101 over graphql-ws, 200 for a graphql-sse stream). */
  readonly status: number;
  /** The payload, as the bytes sent. */
  readonly payload: string;
}

/**
 * The text of the `errors` of an answer, as sent: a refusal's payload is `{"errors":[…]}`
 * (nothing else) and a graphql-ws `error` message's payload is the errors themselves.
 *
 * @throws Error when the payload holds anything beside the errors
 */
export function errorsText(answer: RawAnswer): string {
  if (answer.frame === 'error') return answer.payload;
  // Apollo Server ends its bodies with a newline (framing, as an event's or message's end is).
  const payload = answer.frame === 'body' ? answer.payload.replace(/\n$/, '') : answer.payload;
  const prefix = '{"errors":';
  if (!payload.startsWith(prefix) || !payload.endsWith('}'))
    throw new Error(`not a refusal's payload: ${payload.slice(0, 200)}`);
  // Over HTTP, a refusal after the request phase (parse, validation, an operation step) also
  // carries the operation's upstream accounting, zeros (docs/errors.md): the errors must match.
  const accounting = payload.lastIndexOf('],"extensions":{"upstream":');
  return payload.slice(prefix.length, accounting >= 0 ? accounting + 1 : -1);
}

/** The raw text of the first value of `member` in a JSON text whose members are written by JSON.stringify. */
function member(text: string, name: string): string {
  const start = text.indexOf(`"${name}":`);
  if (start < 0) throw new Error(`no ${name} in ${text.slice(0, 200)}`);
  let index = start + name.length + 3;
  let depth = 0;
  let inString = false;
  for (; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') depth += 1;
    else if (char === '}' || char === ']') {
      if (depth === 0) break;
      depth -= 1;
      if (depth === 0) return text.slice(start + name.length + 3, index + 1);
    } else if (char === ',' && depth === 0) break;
  }
  return text.slice(start + name.length + 3, index);
}

/** Sends `body` over graphql-ws on a fresh socket; the first `next` or `error` message of the subscribe with id `1`. */
async function overWs(
  stack: HttpStack,
  body: string,
  authorization: string | null,
  before: readonly string[],
): Promise<RawAnswer> {
  const socket = new WebSocket(stack.endpoint.replace(/^http/, 'ws'), 'graphql-transport-ws');
  try {
    const answered = new Promise<RawAnswer>((resolve, reject) => {
      socket.on('message', (data: WebSocket.RawData) => {
        const text = String(data);
        if (text.includes('"connection_ack"')) {
          // The subscribes of `before` first (they hold the connection's places), then this one,
          // in one TCP write, so the gateway reads them in one turn.
          const tcp = (socket as unknown as { _socket: Socket })._socket;
          tcp.cork();
          for (const [index, query] of before.entries())
            socket.send(JSON.stringify({ id: `before-${index}`, type: 'subscribe', payload: { query } }));
          socket.send(`{"id":"1","type":"subscribe","payload":${body}}`);
          process.nextTick(() => tcp.uncork());
          return;
        }
        const message = JSON.parse(text) as { id?: string; type?: string };
        if (message.id === '1' && (message.type === 'next' || message.type === 'error'))
          resolve({ frame: message.type, status: 101, payload: member(text, 'payload') });
      });
      socket.once('close', (code) => reject(new Error(`the socket closed with ${code}`)));
      socket.once('error', reject);
    });
    socket.once('open', () =>
      socket.send(
        JSON.stringify({ type: 'connection_init', payload: authorization === null ? {} : { authorization } }),
      ),
    );
    return await answered;
  } finally {
    socket.close();
  }
}

/**
 * Sends `body` (the JSON text of a request) over a transport and returns its first answer as sent.
 *
 * @param authorization - the raw `Authorization` value (or connection parameter), null for none
 * @param before - graphql-ws only: queries sent on the same socket just before it
 */
export async function rawOver(
  transport: RawTransport,
  stack: HttpStack,
  body: string,
  authorization: string | null,
  before: readonly string[] = [],
): Promise<RawAnswer> {
  if (transport === 'graphql-ws') return overWs(stack, body, authorization, before);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(authorization === null ? {} : { authorization }),
  };
  if (transport === 'http') {
    const response = await fetch(stack.endpoint, { method: 'POST', headers, body });
    return { frame: 'body', status: response.status, payload: await response.text() };
  }
  const response = await fetch(`${stack.origin}/graphql/stream`, {
    method: 'POST',
    headers: { ...headers, accept: 'text/event-stream' },
    body,
  });
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream'))
    return { frame: 'body', status: response.status, payload: text };
  const next = /^event: next\ndata: (.*)$/m.exec(text);
  if (!next?.[1]) throw new Error(`no next event in ${text.slice(0, 200)}`);
  return { frame: 'next', status: response.status, payload: next[1] };
}
