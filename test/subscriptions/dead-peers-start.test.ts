/**
 * The dead-peer detection of SSE streams (src/subscriptions/dead-peers.ts) is loaded when
 * the transport starts, not in the turn of the first stream: net-keepalive and ffi-rs's
 * binary took about 50 ms there, in the turn that opens a burst of clients' streams.
 */
import { until, useStacks } from '../support';

let mockLoads = 0;
jest.mock('net-keepalive', () => {
  mockLoads += 1;
  return jest.requireActual<object>('net-keepalive');
});

describe('the dead-peer detection of SSE streams', () => {
  const stacks = useStacks();

  it('is loaded at the start, before any stream', async () => {
    await stacks.start({ http: true, config: { sseDeadPeerTimeoutMs: 30_000 } });
    await until(() => mockLoads > 0, 'net-keepalive loaded without a stream');
    expect(mockLoads).toBe(1);
  });
});
