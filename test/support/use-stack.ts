/**
 * One idiom for a test file's setup: a `use…` call at the top of a file or a `describe`
 * registers the hooks that start what the tests need and close it after them, and restore
 * mocks and real timers, so no test file writes its own `beforeAll`/`afterAll` pair.
 *
 * - {@link useStack}: one stack for the whole block (`beforeAll`/`afterAll`), or a fresh
 *   one for every test (`{ each: true }`); the value it returns stands for the running stack.
 * - {@link useStacks}: stacks a test starts itself, with options of its own
 *   (`await stacks.start(options)`), all closed after each test.
 * - {@link useBrowser}: Chromium for the block, inside `describeWithBrowser` only.
 */
import type { Browser } from 'playwright-core';
import { launchTestBrowser } from './browser';
import { startStack } from './stack';
import type { HttpStack, Stack, StackOptions } from './stack';

/** Options of a stack listening on 127.0.0.1:0. */
type HttpStackOptions = StackOptions & { http: true };

/** When {@link useStack}'s hooks run. */
export interface UseStackHooks {
  /** A fresh stack for every test (`beforeEach`/`afterEach`) instead of one for the block. */
  each?: boolean;
  /** `stack.simulator.reset()` before every test (fixtures and request log as started). */
  resetSimulator?: boolean;
}

/**
 * A stand-in for a value that a hook starts later: every property read goes to the value
 * current at that moment (methods bound to it), so a test file can write `stack.execute(…)`
 * as if the stack existed when the file was read.
 *
 * @throws Error on a read before the hook started the value or after it closed it
 */
function lateBound<T extends object>(what: string, current: () => T | undefined): T {
  return new Proxy({} as T, {
    get(_target, property) {
      const value = current();
      if (value === undefined)
        throw new Error(
          `${what} is not running here: use it inside a test or a hook registered after the one that starts it`,
        );
      const member = Reflect.get(value, property, value) as unknown;
      return typeof member === 'function' ? (member as (...args: unknown[]) => unknown).bind(value) : member;
    },
  });
}

/** Closes `stack` after restoring mocks and real timers (in that order, as the tests always did). */
async function restoreAndClose(stack: Stack | undefined): Promise<void> {
  jest.restoreAllMocks();
  jest.useRealTimers();
  await stack?.close();
}

/**
 * Starts a stack (see {@link startStack}) before the tests of the enclosing block and closes
 * it after them, restoring mocks and real timers; with `{ each: true }` one per test. The
 * options may be a function, called in that hook (for settings the hook must prepare first,
 * e.g. a vault file).
 *
 * @returns the running stack (a stand-in: read it inside tests and later hooks only)
 */
export function useStack(
  options: HttpStackOptions | (() => HttpStackOptions | Promise<HttpStackOptions>),
  hooks?: UseStackHooks,
): HttpStack;
export function useStack(
  options?: StackOptions | (() => StackOptions | Promise<StackOptions>),
  hooks?: UseStackHooks,
): Stack;
export function useStack(
  options: StackOptions | (() => StackOptions | Promise<StackOptions>) = {},
  hooks: UseStackHooks = {},
): Stack {
  let stack: Stack | undefined;
  const start = async (): Promise<void> => {
    stack = await startStack(typeof options === 'function' ? await options() : options);
  };
  const close = async (): Promise<void> => {
    const running = stack;
    stack = undefined;
    await restoreAndClose(running);
  };
  if (hooks.each) {
    beforeEach(start);
    afterEach(close);
  } else {
    beforeAll(start);
    afterAll(close);
  }
  if (hooks.resetSimulator) beforeEach(() => stack?.simulator.reset());
  return lateBound('the stack', () => stack);
}

/** What {@link useStacks} returns: starts a stack that is closed after the current test. */
export interface StackStarter {
  /** {@link startStack} with these options; the stack is closed after the test. */
  start(options: HttpStackOptions): Promise<HttpStack>;
  /** {@link startStack} with these options; the stack is closed after the test. */
  start(options?: StackOptions): Promise<Stack>;
}

/**
 * Stacks that each test starts with options of its own: after every test, mocks and real
 * timers are restored and every stack it started is closed (the last started first).
 */
export function useStacks(): StackStarter {
  const started: Stack[] = [];
  afterEach(async () => {
    jest.restoreAllMocks();
    jest.useRealTimers();
    for (const stack of started.splice(0).reverse()) await stack.close();
  });
  const start = async (options?: StackOptions): Promise<Stack> => {
    const stack = await startStack(options);
    started.push(stack);
    return stack;
  };
  return { start } as StackStarter;
}

/**
 * Chromium for the tests of the enclosing block: launched before them
 * ({@link launchTestBrowser}), closed after them. Call it inside `describeWithBrowser` only
 * (lint rejects it anywhere else), so a machine without Chromium skips the block.
 *
 * @returns the running browser (a stand-in: read it inside tests and later hooks only)
 */
export function useBrowser(): Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchTestBrowser();
  });
  afterAll(async () => {
    const running = browser;
    browser = undefined;
    await running?.close();
  });
  return lateBound('the browser', () => browser);
}
