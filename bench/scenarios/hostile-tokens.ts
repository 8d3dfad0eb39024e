/**
 * The hostile scenario's attacks on the streams of an access token that stops being valid
 * (hostile.ts runs them with the others: `/healthz` polled every 50 ms, the event-loop delay
 * p99 over the attack):
 *
 * - `token-revoked-streams`: a token's live queries, half over graphql-ws and half over
 *   graphql-sse, all open; the bench revokes the token in the vault file (as
 *   `statev-gateway tokens revoke` does). Before the fix they kept receiving results until
 *   the client left; now each gets a last result with `UNAUTHENTICATED` and
 *   `extensions.reason` `revoked`, then ends, within 1 s (the vault file is checked every
 *   250 ms).
 * - `token-expired-streams`: the same with a token that expires a few seconds after the
 *   streams opened (reason `expired`), ended by the gateway's expiry timer.
 *
 * Figures: the streams opened and ended with the reason, and the latest end after the
 * revocation (or the expiry), ms (target 1,000).
 */
import { request as httpRequest } from 'node:http';
import WebSocket from 'ws';
import { FIXTURE_IDS } from '../../src/simulator';
import type { Vault } from '../../src/vault';
import { round } from '../lib/bench';
import { sleep } from '../lib/http';
import type { Service } from '../lib/processes';

/** What an attack reports besides the timings. */
type Outcome = Record<string, unknown> & { internalErrors: number };

/** One attack, as hostile.ts runs it. */
interface TokenAttack {
  name: string;
  description: string;
  run: (gateway: Service) => Promise<Outcome>;
}

/** Target of the time from the revocation (or expiry) to the last stream's end, ms. */
const END_TARGET_MS = 1000;
/** The live query each stream holds (the token's grants allow it). */
const LIVE = { query: 'query Shop($id: ID!) @live { factory(id: $id) { name } }', variables: { id: FIXTURE_IDS.shop } };

/** One open stream: resolves `first` on its first result, `ended` with the reason of its last one (or how it closed). */
interface Stream {
  first: Promise<void>;
  ended: Promise<{ reason: string; atMs: number }>;
  close(): void;
}

/** The reason of an `UNAUTHENTICATED` result in `text`, or null. */
function reasonOf(text: string): string | null {
  if (!text.includes('"UNAUTHENTICATED"')) return null;
  return /"reason":"([\w-]+)"/.exec(text)?.[1] ?? 'none';
}

/** A promise and its resolve. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

function wsStream(gateway: Service, token: string): Stream {
  const first = deferred<void>();
  const ended = deferred<{ reason: string; atMs: number }>();
  const socket = new WebSocket(`${gateway.origin.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  socket.once('open', () =>
    socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })),
  );
  socket.on('message', (data: WebSocket.RawData) => {
    const text = String(data);
    const type = (JSON.parse(text) as { type?: string }).type;
    if (type === 'connection_ack') socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: LIVE }));
    const reason = reasonOf(text);
    if (reason !== null) ended.resolve({ reason, atMs: performance.now() });
    else if (type === 'next') first.resolve();
    else if (type === 'complete' || type === 'error') ended.resolve({ reason: type, atMs: performance.now() });
  });
  socket.once('close', (code) => ended.resolve({ reason: `closed ${code}`, atMs: performance.now() }));
  socket.once('error', () => ended.resolve({ reason: 'socket error', atMs: performance.now() }));
  return { first: first.promise, ended: ended.promise, close: () => socket.terminate() };
}

function sseStream(gateway: Service, token: string): Stream {
  const first = deferred<void>();
  const ended = deferred<{ reason: string; atMs: number }>();
  const body = JSON.stringify(LIVE);
  const url = new URL('/graphql/stream', gateway.origin);
  const req = httpRequest(
    url,
    {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'text/event-stream',
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
    },
    (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        const reason = reasonOf(text);
        if (reason !== null) ended.resolve({ reason, atMs: performance.now() });
        else if (text.includes('event: next')) first.resolve();
        if (text.length > 100_000) text = text.slice(-10_000);
      });
      res.once('end', () => ended.resolve({ reason: 'ended', atMs: performance.now() }));
      res.once('error', () => ended.resolve({ reason: 'response error', atMs: performance.now() }));
    },
  );
  req.once('error', () => ended.resolve({ reason: 'request error', atMs: performance.now() }));
  req.end(body);
  return { first: first.promise, ended: ended.promise, close: () => req.destroy() };
}

/**
 * Opens `count` streams with a new token (half graphql-ws, half graphql-sse), waits for
 * their first results, then `invalidate`s the token and waits for their ends.
 */
async function streamsOfToken(
  gateway: Service,
  vault: Vault,
  count: number,
  expiresInMs: number,
  invalidate: (id: string) => Promise<number>,
  boundMs: number,
): Promise<Outcome> {
  const { id, token } = await vault.createToken({
    characters: ['premium'],
    grants: [`factory:${FIXTURE_IDS.shop}`, 'subscribe'],
    expiresInMs,
  });
  // The gateway reads the vault file again within 250 ms.
  await sleep(600);
  const streams = Array.from({ length: count }, (_, i) =>
    i % 2 === 0 ? wsStream(gateway, token) : sseStream(gateway, token),
  );
  try {
    const opened = await Promise.race([
      Promise.all(streams.map((stream) => stream.first)).then(() => true),
      sleep(30_000).then(() => false),
    ]);
    const atMs = await invalidate(id);
    const ends = await Promise.all(
      streams.map((stream) =>
        Promise.race([stream.ended, sleep(boundMs).then(() => ({ reason: 'still open', atMs: Number.NaN }))]),
      ),
    );
    const reasons: Record<string, number> = {};
    for (const end of ends) reasons[end.reason] = (reasons[end.reason] ?? 0) + 1;
    const latest = Math.max(...ends.map((end) => end.atMs - atMs));
    const lastEndMs = Number.isFinite(latest) ? round(latest) : null;
    return {
      streams: count,
      allOpened: opened,
      reasons,
      lastEndAfterMs: lastEndMs,
      targetMs: END_TARGET_MS,
      endedWithin1s: lastEndMs !== null && lastEndMs <= END_TARGET_MS,
      internalErrors: 0,
    };
  } finally {
    for (const stream of streams) stream.close();
  }
}

/**
 * The attacks on a token's open streams, with `vault` (the gateway's vault file, holding the
 * key `premium`).
 *
 * @param quick - fewer streams (`--quick`)
 */
export function tokenAttacks(vault: Vault, quick: boolean): TokenAttack[] {
  const count = quick ? 10 : 40;
  // The expiring token's lifetime: time for its streams to open first (under a second here).
  const expiresInMs = quick ? 4000 : 8000;
  return [
    {
      name: 'token-revoked-streams',
      description: `${count} live queries of one access token (half graphql-ws, half graphql-sse), then the token revoked in the vault file; each must end with UNAUTHENTICATED (reason revoked) within ${END_TARGET_MS} ms`,
      run: (g) =>
        streamsOfToken(
          g,
          vault,
          count,
          86_400_000,
          async (id) => {
            const atMs = performance.now();
            await vault.revokeToken(id);
            return atMs;
          },
          10_000,
        ),
    },
    {
      name: 'token-expired-streams',
      description: `${count} live queries of an access token that expires ${expiresInMs / 1000} s after it was made (half graphql-ws, half graphql-sse); each must end with UNAUTHENTICATED (reason expired) within ${END_TARGET_MS} ms of the expiry`,
      run: async (g) => {
        const madeMs = performance.now();
        return streamsOfToken(
          g,
          vault,
          count,
          expiresInMs,
          async () => {
            const expiryMs = madeMs + expiresInMs;
            return expiryMs;
          },
          20_000,
        );
      },
    },
  ];
}
