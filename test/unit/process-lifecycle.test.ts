/**
 * The entry points' lifecycle (`runUntilSignal`): one stop per shutdown, further signals
 * ignored, a failed stop reported with its cause, a hanging stop ended after the grace
 * period. Signals, exit and stderr are test doubles; time is jest's fake clock.
 */
import { ConfigError } from '../../src/config';
import { runUntilSignal, STOP_DEADLINE_MARGIN_MS } from '../../src/process-lifecycle';
import type { ProcessHooks, Started } from '../../src/process-lifecycle';

interface FakeProcess extends ProcessHooks {
  signal(name: NodeJS.Signals): void;
  exits: number[];
  reports: { message: string; error?: unknown }[];
}

function fakeProcess(): FakeProcess {
  const listeners = new Map<string, (() => void)[]>();
  const fake: FakeProcess = {
    exits: [],
    reports: [],
    onSignal(signal, listener) {
      listeners.set(signal, [...(listeners.get(signal) ?? []), listener]);
    },
    exit(code) {
      fake.exits.push(code);
    },
    report(message, error) {
      fake.reports.push(error === undefined ? { message } : { message, error });
    },
    signal(name) {
      for (const listener of listeners.get(name) ?? []) listener();
    },
  };
  return fake;
}

/** A stop the test settles by hand. */
function controlledStop(): { started: Started; calls: () => number; resolve: () => void; reject: (error: Error) => void } {
  let calls = 0;
  let resolve = (): void => undefined;
  let reject = (_error: Error): void => undefined;
  const started: Started = {
    gracePeriodMs: 5000,
    stop: () => {
      calls += 1;
      return new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
    },
  };
  return { started, calls: () => calls, resolve: () => resolve(), reject: (error) => reject(error) };
}

/** Lets settled promises run their callbacks. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  jest.useRealTimers();
});

it('stops once on SIGTERM and exits 0 when the stop succeeds', async () => {
  const host = fakeProcess();
  const stop = controlledStop();
  await runUntilSignal(async () => stop.started, host);
  host.signal('SIGTERM');
  expect(stop.calls()).toBe(1);
  expect(host.exits).toEqual([]); // not before the stop finished
  stop.resolve();
  await flush();
  expect(host.exits).toEqual([0]);
});

it('ignores a second signal during the stop', async () => {
  const host = fakeProcess();
  const stop = controlledStop();
  await runUntilSignal(async () => stop.started, host);
  host.signal('SIGINT');
  host.signal('SIGINT');
  host.signal('SIGTERM');
  expect(stop.calls()).toBe(1);
  expect(host.exits).toEqual([]);
  expect(host.reports.map((r) => r.message)).toEqual([
    'SIGINT received while stopping: ignored, the stop goes on.',
    'SIGTERM received while stopping: ignored, the stop goes on.',
  ]);
  stop.resolve();
  await flush();
  expect(host.exits).toEqual([0]);
});

it('reports a failed stop with its cause and exits 1', async () => {
  const host = fakeProcess();
  const stop = controlledStop();
  await runUntilSignal(async () => stop.started, host);
  host.signal('SIGTERM');
  const failure = new Error('upstream close failed', { cause: new Error('socket hang up') });
  stop.reject(failure);
  await flush();
  expect(host.reports).toEqual([{ message: 'Stop failed:', error: failure }]);
  expect(host.exits).toEqual([1]);
});

it('ends a stop that hangs past the grace period with exit code 1', async () => {
  jest.useFakeTimers();
  const host = fakeProcess();
  const stop = controlledStop();
  await runUntilSignal(async () => stop.started, host);
  host.signal('SIGTERM');
  jest.advanceTimersByTime(stop.started.gracePeriodMs + STOP_DEADLINE_MARGIN_MS - 1);
  expect(host.exits).toEqual([]);
  jest.advanceTimersByTime(1);
  expect(host.exits).toEqual([1]);
  expect(host.reports.map((r) => r.message)).toEqual([`Stop did not finish within ${stop.started.gracePeriodMs + STOP_DEADLINE_MARGIN_MS} ms: exiting.`]);
});

it('does not end a stop that finishes in time', async () => {
  jest.useFakeTimers();
  const host = fakeProcess();
  const stop = controlledStop();
  await runUntilSignal(async () => stop.started, host);
  host.signal('SIGTERM');
  stop.resolve();
  await Promise.resolve();
  await Promise.resolve();
  jest.advanceTimersByTime(60_000);
  expect(host.exits).toEqual([0]);
});

it('reports a failed start with its message and exits 1, without waiting for signals', async () => {
  const host = fakeProcess();
  await runUntilSignal(async () => {
    throw new Error('listen EADDRINUSE: address already in use 127.0.0.1:4000');
  }, host);
  expect(host.reports).toEqual([{ message: 'listen EADDRINUSE: address already in use 127.0.0.1:4000' }]);
  expect(host.exits).toEqual([1]);
});

it('exits 2 when the start fails on a bad setting, as the command line does', async () => {
  const host = fakeProcess();
  await runUntilSignal(async () => {
    throw new ConfigError('PORT', 'abc', 'an integer from 0 to 65535');
  }, host);
  expect(host.reports).toEqual([{ message: 'Setting PORT="abc" is invalid: expected an integer from 0 to 65535.' }]);
  expect(host.exits).toEqual([2]);
});
