/**
 * Refresh-ahead's decisions (src/economy/refresh-ahead/refresh-ahead.ts) on a fake clock
 * (a plain variable): which resources qualify (read twice within their freshness window,
 * near expiry), their ranking (recent reads per second of remaining freshness), the
 * budget share, the idle cut-off, and which resources grow old first when the budget is
 * short (the least read).
 */
import { RefreshAhead } from '../../src/economy/refresh-ahead/refresh-ahead';
import type { RefreshAheadOptions, ResourceRead } from '../../src/economy/refresh-ahead/refresh-ahead';
import { ENDPOINTS } from '../../src/upstream/endpoints';

let now = 1_000_000;
const TTL = 60_000;

function tracker(options: Partial<RefreshAheadOptions> = {}): RefreshAhead {
  return new RefreshAhead({
    share: 0.7,
    idleMs: 120_000,
    budget: { requests: 10, windowMs: 60_000 },
    now: () => now,
    ...options,
  });
}

function read(ahead: RefreshAhead, path: string, storedAt: number, keyId = 'k1', ttlMs = TTL): void {
  const event: ResourceRead = {
    keyId,
    apiKey: `api-${keyId}`,
    key: `${keyId}|${path}`,
    endpoint: ENDPOINTS.factoryCounter,
    storedAt,
    ttlMs,
  };
  ahead.noteRead(event);
}

/** Reads `path` `times` times, one second apart, ending at the current time. */
function readTimes(ahead: RefreshAhead, path: string, times: number, storedAt: number, keyId = 'k1'): void {
  const end = now;
  for (let i = times - 1; i >= 0; i -= 1) {
    now = end - i * 1000;
    read(ahead, path, storedAt, keyId);
  }
  now = end;
}

beforeEach(() => {
  now = 1_000_000;
});

describe('RefreshAhead', () => {
  it('tracks at most maxResourcesPerKey resources of a key, forgetting the least recently read first', () => {
    const ahead = tracker({ maxResourcesPerKey: 2 });
    const storedAt = now;
    now = storedAt + 10_000;
    readTimes(ahead, '/a', 2, storedAt);
    readTimes(ahead, '/b', 2, storedAt);
    now += 1000;
    read(ahead, '/a', storedAt); // '/a' read again: '/b' is now the least recently read
    now += 1000;
    readTimes(ahead, '/c', 2, storedAt);
    now = storedAt + 50_000;
    expect(
      ahead
        .candidates('k1')
        .map((candidate) => candidate.key)
        .sort(),
    ).toEqual(['k1|/a', 'k1|/c']);
  });

  it('forgets the least recently read key beyond maxKeys, whatever a tick looked at in between', () => {
    const ahead = tracker({ maxKeys: 2 });
    const storedAt = now;
    now = storedAt + 10_000;
    readTimes(ahead, '/a', 2, storedAt, 'k1');
    readTimes(ahead, '/a', 2, storedAt, 'k2'); // k2 read last: k1 is the least recently read
    now = storedAt + 50_000;
    // A tick looks at both keys (and a refresh finishes): neither may reorder them.
    for (const task of ahead.tick()) ahead.done(task, null);
    readTimes(ahead, '/a', 2, storedAt, 'k3');
    expect(ahead.candidates('k1')).toEqual([]);
    expect(ahead.candidates('k2').map((candidate) => candidate.key)).toEqual(['k2|/a']);
  });

  it('refreshes a resource read at least twice within its freshness window, once it nears expiry, and not before', () => {
    const ahead = tracker();
    const storedAt = now;
    now = storedAt + 10_000;
    readTimes(ahead, '/twice', 2, storedAt);
    read(ahead, '/once', storedAt);
    expect(ahead.tick()).toEqual([]); // 50 s of freshness left: too early

    now = storedAt + 46_000; // 14 s left: within the last quarter
    const tasks = ahead.tick();
    expect(tasks.map((task) => task.path)).toEqual(['/twice']); // '/once' was read only once
    expect(tasks[0]).toMatchObject({ keyId: 'k1', apiKey: 'api-k1', key: 'k1|/twice' });
  });

  it('does not count reads older than the freshness window', () => {
    const ahead = tracker();
    const storedAt = now;
    read(ahead, '/old', storedAt);
    now = storedAt + 61_000;
    read(ahead, '/old', storedAt + 58_000); // the earlier read is outside [now - TTL, now]
    now = storedAt + 58_000 + 50_000;
    expect(ahead.candidates('k1')).toEqual([]);
  });

  it('ranks by recent reads per second of remaining freshness', () => {
    const ahead = tracker({ budget: null, maxPerTick: 10 });
    const t0 = now;
    now = t0 + 40_000;
    readTimes(ahead, '/many-reads-later', 8, t0 + 10_000); // 8 reads, expires at t0 + 70 s
    readTimes(ahead, '/few-reads-soon', 2, t0); // 2 reads, expires at t0 + 60 s
    readTimes(ahead, '/few-reads-later', 2, t0 + 10_000); // 2 reads, expires at t0 + 70 s
    now = t0 + 56_000;
    const ranked = ahead.candidates('k1');
    // 8 / 14 s = 0.57, 2 / 4 s = 0.5, 2 / 14 s = 0.14
    expect(ranked.map((c) => c.key)).toEqual(['k1|/many-reads-later', 'k1|/few-reads-soon', 'k1|/few-reads-later']);
    expect(ranked[0]?.score).toBeCloseTo(8 / 14);
    expect(ranked[1]?.score).toBeCloseTo(2 / 4);
  });

  it('uses at most its share of each key’s budget in any budget window', () => {
    const ahead = tracker(); // 0.7 × 10 per 60 s = 7
    const storedAt = now;
    now = storedAt + 30_000;
    for (let i = 0; i < 12; i += 1) readTimes(ahead, `/r${i}`, 2, storedAt);
    now = storedAt + 50_000;
    expect(ahead.tick()).toHaveLength(7);
    expect(ahead.allowance('k1')).toBe(0);
    now += 30_000; // still within 60 s of those 7 refreshes
    expect(ahead.tick()).toEqual([]);
    now += 31_000; // the window has passed
    expect(ahead.allowance('k1')).toBe(7);
  });

  it('keeps the share per key: one busy key does not use another key’s share', () => {
    const ahead = tracker();
    const storedAt = now;
    now = storedAt + 30_000;
    for (let i = 0; i < 10; i += 1) readTimes(ahead, `/a${i}`, 2, storedAt, 'ka');
    readTimes(ahead, '/b', 2, storedAt, 'kb');
    now = storedAt + 50_000;
    const tasks = ahead.tick();
    expect(tasks.filter((task) => task.keyId === 'ka')).toHaveLength(7);
    expect(tasks.filter((task) => task.keyId === 'kb')).toHaveLength(1);
  });

  it('refreshes nothing for a key nobody has read for REFRESH_AHEAD_IDLE_SECONDS, and forgets its API key', () => {
    const ahead = tracker({ idleMs: 30_000 });
    const storedAt = now;
    readTimes(ahead, '/x', 2, storedAt);
    now = storedAt + 50_000; // 49 s after the last read: idle
    expect(ahead.tick()).toEqual([]);
    expect(ahead.activeKeys).toBe(0);
  });

  it('lets the least-read resources grow old first when the budget cannot keep all fresh', () => {
    const ahead = tracker({ budget: { requests: 3, windowMs: 60_000 }, share: 1 });
    const t0 = now;
    now = t0 + 40_000;
    const readsByPath: Record<string, number> = { '/r1': 2, '/r2': 3, '/r3': 4, '/r4': 5, '/r5': 6 };
    for (const [path, times] of Object.entries(readsByPath)) readTimes(ahead, path, times, t0);
    now = t0 + 50_000; // all five expire at the same time; the budget allows 3
    const refreshed = ahead.tick().map((task) => task.path);
    expect(refreshed).toEqual(['/r5', '/r4', '/r3']);
    for (const task of ['/r5', '/r4', '/r3'])
      ahead.done(
        { keyId: 'k1', apiKey: 'api-k1', key: `k1|${task}`, endpoint: ENDPOINTS.factoryCounter, path: task },
        now,
      );
    now = t0 + 61_000; // /r1 and /r2 have expired: they are the ones that grew old
    expect(ahead.candidates('k1').map((c) => c.key)).toEqual(['k1|/r2', 'k1|/r1']);
  });

  it('does not choose a resource again while its refresh runs, and starts its freshness anew after it', () => {
    const ahead = tracker({ budget: null });
    const storedAt = now;
    now = storedAt + 30_000;
    readTimes(ahead, '/x', 2, storedAt);
    now = storedAt + 50_000;
    const [task] = ahead.tick();
    expect(task?.path).toBe('/x');
    expect(ahead.tick()).toEqual([]); // running
    if (task) ahead.done(task, now);
    expect(ahead.candidates('k1')).toEqual([]); // fresh again for 60 s
  });
});
