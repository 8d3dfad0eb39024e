/**
 * Time in tests without sleeps: a faked `Date` that moves the gateway and the simulator
 * together, and waiting on the event loop (turns, not delays).
 */

/**
 * Fakes only `Date` (every timer stays real, so sockets, undici and the simulator work
 * as usual) and sets it to `start`. Move it with {@link setClock}/{@link advanceClock};
 * end with `jest.useRealTimers()` (a stack started with `fakeDate` does that on close).
 */
export function useFakeDate(start: number): void {
  jest.useFakeTimers({
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'requestAnimationFrame',
      'cancelAnimationFrame',
      'requestIdleCallback',
      'cancelIdleCallback',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
    now: start,
  });
}

/**
 * Fakes every timer and `Date` (set to `start`, default {@link T0}); I/O callbacks,
 * `setImmediate`, `nextTick` and microtasks stay real, so sockets work while timers wait
 * for `jest.advanceTimersByTime`. End with `jest.useRealTimers()`.
 */
export function useFakeTimersWithRealIo(start: number = T0): void {
  jest.useFakeTimers({
    doNotFake: ['nextTick', 'setImmediate', 'clearImmediate', 'queueMicrotask', 'performance', 'hrtime'],
    now: start,
  });
}

/** Sets the faked `Date` to an absolute time. */
export function setClock(ms: number): void {
  jest.setSystemTime(ms);
}

/** Moves the faked `Date` forward. */
export function advanceClock(ms: number): void {
  jest.setSystemTime(Date.now() + ms);
}

/** A whole second, so that HTTP dates (second precision) are exact. */
export const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);

/** One turn of the event loop (not a delay: it resolves as soon as pending I/O callbacks ran). */
export function turn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** Turns the event loop until `condition` holds; fails after `maxTurns` turns. */
export async function until(condition: () => boolean, what: string, maxTurns = 10_000): Promise<void> {
  for (let i = 0; i < maxTurns; i += 1) {
    if (condition()) return;
    await turn();
  }
  throw new Error(`gave up waiting for ${what}`);
}
