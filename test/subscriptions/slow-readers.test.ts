/**
 * Slow readers are cut, not buffered (src/subscriptions/slow-readers.ts): a stream whose
 * writes do not reach the kernel within STREAM_DRAIN_TIMEOUT_MS, or whose queued bytes go
 * over STREAM_MAX_QUEUED_BYTES, is cut and its places freed, on graphql-sse (both modes) as
 * on graphql-ws. A client that does not read is played by corking the gateway's end of the
 * connection: its writes then stay in the process, as when the peer's window is closed.
 * Unit cases run on fake timers; the stack cases wait for the cut's events.
 */
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Writable } from 'node:stream';
import WebSocket from 'ws';
import { nextSlice } from '../../src/graph/execution/turn-slices';
import { SlowReaderGuard, guardSseResponse, guardWrites } from '../../src/subscriptions/slow-readers';
import type { CutReason } from '../../src/subscriptions/slow-readers';
import { DEMO_KEYS, FIXTURE_IDS } from '../../src/simulator';
import { ManualClock, turn, until, useFakeTimersWithRealIo, useStacks } from '../support';
import type { HttpStack } from '../support';
import { holdings, open, startNext, untilReleased } from './streams';

/** A writable whose writes never complete (their callbacks are held) until `release()`. */
function stuckWritable(): { stream: Writable; release(): void } {
  const held: Array<() => void> = [];
  const stream = new Writable({
    highWaterMark: 16,
    write(_chunk, _encoding, callback) {
      held.push(() => callback());
    },
  });
  return { stream, release: () => held.splice(0).forEach((done) => done()) };
}

describe('SlowReaderGuard', () => {
  afterEach(() => jest.useRealTimers());

  it('cuts a stream whose write is not flushed within the drain bound', () => {
    jest.useFakeTimers();
    const { stream } = stuckWritable();
    const cuts: CutReason[] = [];
    const guard = new SlowReaderGuard(
      { maxQueuedBytes: 1024, drainTimeoutMs: 1000 },
      () => stream.writableLength,
      (reason) => cuts.push(reason),
    );
    guardWrites(stream, 'write', guard);
    stream.write(':\n\n');
    jest.advanceTimersByTime(999);
    expect(cuts).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(cuts).toEqual(['drain-timeout']);
    expect(guard.closed).toBe(true);
  });

  it('cuts at once when the bytes queued go over the bound', () => {
    jest.useFakeTimers();
    const { stream } = stuckWritable();
    const cuts: CutReason[] = [];
    const guard = new SlowReaderGuard(
      { maxQueuedBytes: 1024, drainTimeoutMs: 60_000 },
      () => stream.writableLength,
      (reason) => cuts.push(reason),
    );
    guardWrites(stream, 'write', guard);
    stream.write('x'.repeat(1000));
    expect(cuts).toEqual([]);
    stream.write('x'.repeat(100));
    expect(cuts).toEqual(['queued-bytes']);
  });

  it('lets a stream that drains in time go on, and holds its next result until it has', async () => {
    useFakeTimersWithRealIo();
    const { stream, release } = stuckWritable();
    const cuts: CutReason[] = [];
    const guard = new SlowReaderGuard(
      { maxQueuedBytes: 1024, drainTimeoutMs: 1000 },
      () => stream.writableLength,
      (reason) => cuts.push(reason),
    );
    guardWrites(stream, 'write', guard);
    let written = false;
    stream.write('a', () => (written = true));
    const flushed = guard.flushed();
    expect(flushed).not.toBeNull();
    let went = false;
    void flushed?.then(() => (went = true));
    jest.advanceTimersByTime(900);
    release();
    await turn();
    expect(written).toBe(true);
    expect(went).toBe(true);
    expect(guard.flushed()).toBeNull();
    jest.advanceTimersByTime(10_000);
    expect(cuts).toEqual([]);
  });
});

describe('guardSseResponse', () => {
  it('closes a cut stream at once and destroys its connection in a later slice, not in the turn of the cut', async () => {
    const { stream } = stuckWritable();
    const cuts: CutReason[] = [];
    const guard = guardSseResponse(
      stream as unknown as ServerResponse,
      { maxQueuedBytes: 1024, drainTimeoutMs: 60_000 },
      (reason) => cuts.push(reason),
    );
    stream.write('x'.repeat(1000));
    stream.write('x'.repeat(100));
    expect(cuts).toEqual(['queued-bytes']);
    expect(guard.closed).toBe(true);
    expect(guard.flushed()).toBeNull();
    // Many streams reach their bound in one turn: their teardowns go to the queue of sliced work.
    expect(stream.destroyed).toBe(false);
    await nextSlice();
    expect(stream.destroyed).toBe(true);
  });
});

describe('streams whose client does not read', () => {
  const stacks = useStacks();

  /** A stack whose SSE keep-alives come every 50 ms and whose streams are cut after 100 ms without draining. */
  async function start(keepAliveMs: number): Promise<HttpStack> {
    const clock = new ManualClock();
    return stacks.start({
      http: true,
      config: { subscriptionKeepAliveMs: keepAliveMs, streamDrainTimeoutMs: 100 },
      gateway: { now: clock.now, pollClock: clock },
    });
  }

  it.each(['sse', 'sse-single'] as const)(
    'cuts a %s live query whose client stopped reading, and frees its place',
    async (transport) => {
      const stack = await start(50);
      const streams: ServerResponse[] = [];
      stack.gateway.httpServer.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
        if (req.headers.accept === 'text/event-stream' && req.method !== 'PUT') streams.push(res);
      });
      const held = open(stack, transport, 'live', 'reset');
      const first = await held.first;
      expect(first.errors).toBeUndefined();
      expect(holdings(stack).liveOpen).toBe(1);
      const [res] = streams;
      if (!res?.socket) throw new Error('no SSE stream');
      // The client's window closed: nothing written from now on reaches the kernel (the next keep-alive included).
      res.socket.cork();
      await once(res, 'close');
      await held.ended;
      await untilReleased(stack, `${transport} stream cut`);
    },
  );

  it('neither prints nor writes the result an SSE stream was cut before it could take', async () => {
    // The drain bound far off: the stream is cut by the bytes bound (4 MiB), by a write of the test's own.
    const clock = new ManualClock();
    const stack = await stacks.start({
      http: true,
      config: { subscriptionKeepAliveMs: 60_000, streamDrainTimeoutMs: 60_000, liveQueryThrottleMs: 0 },
      gateway: { now: clock.now, pollClock: clock },
    });
    const streams: ServerResponse[] = [];
    stack.gateway.httpServer.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.headers.accept === 'text/event-stream') streams.push(res);
    });
    const held = open(stack, 'sse', 'live', 'reset');
    expect((await held.first).errors).toBeUndefined();
    const [res] = streams;
    if (!res?.socket) throw new Error('no SSE stream');
    // The next result waits for the stream to flush (a backlog the test holds); meanwhile the stream is cut.
    let release = (): void => undefined;
    const backlog = new Promise<void>((resolve) => (release = resolve));
    const waiting = jest.spyOn(SlowReaderGuard.prototype, 'flushed').mockImplementationOnce(() => backlog);
    await startNext({ stack, clock }, 'live', 1);
    await until(() => waiting.mock.calls.length > 0, 'a result waiting for the stream');
    waiting.mockRestore();
    // From the cut on: what is written to the stream, and JSON.stringify calls on a result.
    const written: string[] = [];
    const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      written.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof res.write;
    const stringify = JSON.stringify;
    let printed = 0;
    const spy = jest.spyOn(JSON, 'stringify').mockImplementation((...args: Parameters<typeof JSON.stringify>) => {
      const value = args[0] as { data?: { factory?: unknown } } | null;
      if (value?.data?.factory !== undefined) printed += 1;
      return stringify(...args);
    });
    try {
      const closed = once(res, 'close');
      res.socket.cork();
      write('x'.repeat(8 * 1024 * 1024));
      release();
      await closed;
    } finally {
      spy.mockRestore();
    }
    expect(written).toEqual([]);
    expect(printed).toBe(0);
    await held.ended;
    await untilReleased(stack, 'sse stream cut with a result waiting');
  });

  it('cuts a WebSocket whose client stopped reading, and frees its subscriptions', async () => {
    // Pings far apart: the cut must come from the unflushed write, not from a missed pong.
    const stack = await start(60_000);
    const sockets: Socket[] = [];
    stack.gateway.httpServer.prependListener('upgrade', (_req: IncomingMessage, socket: Socket) =>
      sockets.push(socket),
    );
    const ws = new WebSocket(stack.endpoint.replace(/^http/, 'ws'), 'graphql-transport-ws');
    await once(ws, 'open');
    ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${DEMO_KEYS.premium.key}` } }));
    await once(ws, 'message');
    ws.send(
      JSON.stringify({
        id: '1',
        type: 'subscribe',
        payload: {
          query: 'query Counter($id: ID!) @live { factory(id: $id) { name } }',
          variables: { id: FIXTURE_IDS.shop },
        },
      }),
    );
    await once(ws, 'message');
    expect(holdings(stack).liveOpen).toBe(1);
    const [socket] = sockets;
    if (!socket) throw new Error('no upgraded socket');
    socket.cork();
    // Its answer stays in the process: the drain bound cuts the connection.
    ws.send(JSON.stringify({ id: '2', type: 'subscribe', payload: { query: '{ __typename }' } }));
    await once(ws, 'close');
    await untilReleased(stack, 'WebSocket cut');
  });
});
