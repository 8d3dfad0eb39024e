/**
 * The entry points' lifecycle (`runUntilSignal`): one stop per shutdown, further signals
 * ignored, a failed stop reported with its cause, a hanging stop ended after the grace
 * period, a port in use named by its setting. Signals, exit and stderr are test doubles;
 * time is jest's fake clock; the busy port is a real one.
 */
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { ConfigError } from '../../src/config';
import {
  explainPortErrors,
  portErrorMessage,
  runUntilSignal,
  STOP_DEADLINE_MARGIN_MS,
} from '../../src/process-lifecycle';
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
function controlledStop(): {
  started: Started;
  calls: () => number;
  resolve: () => void;
  reject: (error: Error) => void;
} {
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
  expect(host.reports.map((r) => r.message)).toEqual([
    `Stop did not finish within ${stop.started.gracePeriodMs + STOP_DEADLINE_MARGIN_MS} ms: exiting.`,
  ]);
});

it('keeps the stop deadline within the longest timer when the delay and grace period are at their bounds', async () => {
  jest.useFakeTimers();
  const host = fakeProcess();
  const stop = controlledStop();
  // SHUTDOWN_DELAY_MS + SHUTDOWN_GRACE_PERIOD_MS, each at 2147483647: a timer that long would fire after 1 ms.
  await runUntilSignal(async () => ({ ...stop.started, gracePeriodMs: 2 * 2_147_483_647 }), host);
  host.signal('SIGTERM');
  jest.advanceTimersByTime(60_000);
  expect(host.exits).toEqual([]);
  stop.resolve();
  await Promise.resolve();
  await Promise.resolve();
  expect(host.exits).toEqual([0]);
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

/** Listens on `port` of 127.0.0.1 (0: a free one); resolves to the server or rejects with the listen error. */
function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('a port in use', () => {
  let holder: Server;
  let port: number;
  beforeAll(async () => {
    holder = await listen(0);
    port = (holder.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

  it('is reported in one line naming the setting, another port to use and how to find the holder; exit code 1', async () => {
    const host = fakeProcess();
    await runUntilSignal(async () => {
      const server = await explainPortErrors({ name: 'PORT', command: 'npm start' }, () => listen(port));
      return { stop: () => new Promise((resolve) => server.close(resolve)), gracePeriodMs: 0 };
    }, host);
    expect(host.reports).toEqual([
      {
        message: `Port ${port} (PORT) on 127.0.0.1 is already in use: start on another port with PORT=${port + 1} npm start, or find the process holding it with lsof -i :${port} (or ss -ltnp 'sport = :${port}').`,
      },
    ]);
    expect(host.exits).toEqual([1]);
  });

  it('names the setting it is given (SIMULATOR_PORT for the simulator of the demo)', async () => {
    const failure = await explainPortErrors({ name: 'SIMULATOR_PORT', command: 'npm run demo' }, () =>
      listen(port),
    ).catch((error: unknown) => error);
    expect((failure as Error).message).toMatch(
      new RegExp(`^Port ${port} \\(SIMULATOR_PORT\\) .* SIMULATOR_PORT=${port + 1} npm run demo, `),
    );
    expect((failure as Error).cause).toMatchObject({ code: 'EADDRINUSE' });
  });

  it('leaves every other failure as it is', async () => {
    const other = new Error('Setting PORT="x" is invalid');
    await expect(explainPortErrors({ name: 'PORT', command: 'npm start' }, () => Promise.reject(other))).rejects.toBe(
      other,
    );
    expect(
      portErrorMessage(
        Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', syscall: 'connect', port: 6379 }),
        { name: 'PORT', command: 'npm start' },
      ),
    ).toBeNull();
  });

  it('explains a privileged port (EACCES) too', () => {
    const error = Object.assign(new Error('listen EACCES: permission denied 0.0.0.0:80'), {
      code: 'EACCES',
      syscall: 'listen',
      address: '0.0.0.0',
      port: 80,
    });
    expect(portErrorMessage(error, { name: 'PORT', command: 'npm start' })).toBe(
      'Port 80 (PORT) on 0.0.0.0 may not be opened by this user (ports below 1024 need privileges): start on another port with PORT=4000 npm start.',
    );
  });
});
