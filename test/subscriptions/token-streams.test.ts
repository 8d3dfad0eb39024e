/**
 * Streams opened with an access token end when the token is revoked or expires
 * (src/subscriptions/token-streams.ts): a final `UNAUTHENTICATED` event naming the reason,
 * then completion, and the stream's places freed. Unit cases on a scripted vault and fake
 * timers (the expiry is one timer, not a poll); stack cases with a vault file: revoked
 * over graphql-ws (the file watch's reload is the event), expired over graphql-sse (fake
 * timers from the moment the stream opens).
 */
import { TOKEN_REFUSALS } from '../../src/vault';
import type { TokenRefusal } from '../../src/vault';
import type { TokenCheck } from '../../src/vault/vault-view';
import { EndableStream, TokenStreams } from '../../src/subscriptions/token-streams';
import { FIXTURE_IDS } from '../../src/simulator';
import { addMaxAndErika, ManualClock, testVault, turn, until, useFakeTimersWithRealIo, useStacks } from '../support';
import type { HttpStack } from '../support';
import { collect, subscribeWs, wsClient } from './clients';
import { createClient as createSseClient } from 'graphql-sse';
import type { ExecutionResult } from 'graphql';
import { holdings } from './streams';

/** A vault whose answers the test sets, with its change event. */
function scriptedVault(expiresAt: number): {
  source: { check(token: string): TokenCheck; onChange(listener: () => void): () => void };
  refuse(reason: TokenRefusal): void;
} {
  let refused: TokenRefusal | null = null;
  const listeners = new Set<() => void>();
  const token = {
    id: 't1',
    characters: [],
    grantTexts: [],
    grants: [],
    expiresAt: new Date(expiresAt),
    origin: null,
    budgetShare: null,
  };
  return {
    source: {
      check: () => (refused ? { kind: 'refused', reason: refused } : { kind: 'ok', token }),
      onChange(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    refuse(reason) {
      refused = reason;
      for (const listener of listeners) listener();
    },
  };
}

/** A source that never yields (a subscription waiting for its next change), noting its return. */
function quietSource(): { iterator: AsyncIterator<ExecutionResult>; returned: () => boolean } {
  let returned = false;
  return {
    iterator: {
      next: () => new Promise(() => undefined),
      return: () => {
        returned = true;
        return Promise.resolve({ value: undefined, done: true });
      },
    },
    returned: () => returned,
  };
}

describe('TokenStreams', () => {
  afterEach(() => jest.useRealTimers());

  it('ends a waiting stream with the revocation as its last event when the vault changes', async () => {
    const vault = scriptedVault(Date.now() + 3_600_000);
    const streams = new TokenStreams(vault.source);
    const source = quietSource();
    const stream = streams.guard(source.iterator, 'svg_x', new Date(Date.now() + 3_600_000));
    const next = stream.next();
    vault.refuse('revoked');
    const last = await next;
    expect(last.done).toBe(false);
    expect(last.value?.errors?.[0]).toMatchObject({
      message: TOKEN_REFUSALS.revoked,
      extensions: { code: 'UNAUTHENTICATED', reason: 'revoked' },
    });
    expect(await stream.next()).toEqual({ value: undefined, done: true });
    expect(source.returned()).toBe(true);
    expect(streams.size).toBe(0);
    streams.close();
  });

  it('ends a stream at its token expiry by a timer, without any vault change', async () => {
    useFakeTimersWithRealIo(Date.UTC(2026, 0, 1));
    const expiresAt = Date.now() + 5000;
    const streams = new TokenStreams(scriptedVault(expiresAt).source);
    const later = streams.guard(quietSource().iterator, 'svg_y', new Date(expiresAt + 60_000));
    const source = quietSource();
    const stream = streams.guard(source.iterator, 'svg_x', new Date(expiresAt));
    let last: IteratorResult<ExecutionResult> | undefined;
    void stream.next().then((result) => (last = result));
    jest.advanceTimersByTime(4999);
    await turn();
    expect(last).toBeUndefined();
    jest.advanceTimersByTime(1);
    await turn();
    expect(last?.value?.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'expired' });
    expect(source.returned()).toBe(true);
    // The other token's stream goes on until its own expiry.
    expect(streams.size).toBe(1);
    jest.advanceTimersByTime(60_000);
    await turn();
    expect(streams.size).toBe(0);
    await later.return(undefined);
    streams.close();
  });

  it('hands on the source values, and tells once when the client leaves', async () => {
    let done = 0;
    const values = (async function* () {
      yield { data: { a: 1 } };
      yield { data: { a: 2 } };
    })();
    const stream = new EndableStream<ExecutionResult>(values, () => (done += 1));
    expect(await stream.next()).toEqual({ value: { data: { a: 1 } }, done: false });
    await stream.return();
    await stream.return();
    expect(done).toBe(1);
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });
});

describe('open streams of a token on a gateway', () => {
  const { vault, vaultFile, masterKey } = testVault('token-streams-');
  const stacks = useStacks();
  const LIVE = {
    query: 'query Name($id: ID!) @live { factory(id: $id) { name } }',
    variables: { id: FIXTURE_IDS.shop },
  };

  beforeAll(async () => {
    await addMaxAndErika(vault);
  });

  async function start(): Promise<HttpStack> {
    const clock = new ManualClock();
    return stacks.start({
      http: true,
      config: { vaultFile, vaultMasterKey: masterKey },
      gateway: { now: clock.now, pollClock: clock },
    });
  }

  it('ends a graphql-ws live query when its token is revoked, with a last error naming it', async () => {
    const { id, token } = await vault.createToken({
      characters: ['max'],
      grants: ['read', 'subscribe'],
      expiresInMs: 3_600_000,
    });
    const stack = await start();
    const client = wsClient(stack.endpoint, token);
    const events = subscribeWs(client, LIVE.query, LIVE.variables);
    expect((await events.next()).errors).toBeUndefined();
    expect(holdings(stack).liveOpen).toBe(1);
    await vault.revokeToken(id);
    const last = await events.next();
    expect(last.errors?.[0]).toMatchObject({
      message: TOKEN_REFUSALS.revoked,
      extensions: { code: 'UNAUTHENTICATED', reason: 'revoked' },
    });
    await events.ended;
    await until(() => holdings(stack).liveOpen === 0, 'the live query ended');
    await client.dispose();
  });

  it('ends a graphql-sse live query when its token expires, by a timer at its expiry', async () => {
    const { token } = await vault.createToken({
      characters: ['max'],
      grants: ['read', 'subscribe'],
      expiresInMs: 60_000,
    });
    const stack = await start();
    useFakeTimersWithRealIo(Date.now());
    const client = createSseClient({
      url: `${stack.gateway.url}/graphql/stream`,
      headers: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    const events = collect((sink) => client.subscribe(LIVE, sink));
    // The first run and the client's reads wait on timers too (faked): they are let go a
    // millisecond at a time, far from the expiry.
    const untilReceived = async (): Promise<void> => {
      for (let step = 0; step < 5000 && events.buffered === 0; step += 1) {
        jest.advanceTimersByTime(1);
        await turn();
      }
    };
    await untilReceived();
    expect((await events.next()).errors).toBeUndefined();
    expect(holdings(stack).liveOpen).toBe(1);
    // A second at a time, so that the keep-alives written meanwhile are flushed as they would be.
    for (let second = 0; second < 60; second += 1) {
      jest.advanceTimersByTime(1000);
      await turn();
    }
    await untilReceived();
    const last = await events.next();
    expect(last.errors?.[0]).toMatchObject({
      message: TOKEN_REFUSALS.expired,
      extensions: { code: 'UNAUTHENTICATED', reason: 'expired' },
    });
    await events.ended;
    await until(() => holdings(stack).liveOpen === 0, 'the live query ended');
    client.dispose();
    jest.useRealTimers();
  });
});
