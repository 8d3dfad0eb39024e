/**
 * The test harness, in one import: `import { startStack, codes, … } from '../support'`.
 *
 * - stack.ts: `startStack(options)` — simulator + gateway (Apollo only, or HTTP on port 0),
 *   optional MockAgent overlay with call history, fake or real clock, optional Redis;
 *   `execute`/`executeText` (executeOperation) and `post`/`get` (HTTP) send operations.
 * - http.ts: raw HTTP requests, typed documents as bodies and query strings, one
 *   keep-alive connection's exchange, the simulator's log as `METHOD /path` lines.
 * - results.ts: error codes and paths, `extensions.upstream`/`stale`, MockAgent error replies.
 * - gateway-process.ts: `src/main.ts` as a child process, stopped with SIGTERM.
 * - redis.ts, browser.ts, tools.ts: `describeWithRedis`/`startTestRedis` and
 *   `describeWithBrowser`/`launchTestBrowser`: tests that need `redis-server` or Chromium,
 *   skipped (with a note at the end of the run) when it is missing, failing with REQUIRE_REDIS/REQUIRE_BROWSER.
 * - clock.ts: faked `Date`, event-loop turns. poll-clock.ts: a manual clock for the subscription pollers.
 *   logs.ts: pino lines. upstream-limit.ts: the simulator's per-key limit off by default.
 * - use-stack.ts: `useStack`/`useStacks`/`useBrowser`, the one setup idiom: hooks that start a
 *   stack (or Chromium) for a block or a test and close it after, restoring mocks and timers.
 * - metrics.ts: one metric's value out of `/metrics` text. terminates.ts: a bound on synchronous
 *   code that would otherwise block the test process for good (an endless loop fails instead).
 */
export * from './browser';
export * from './clock';
export * from './gateway-process';
export * from './http';
export * from './logs';
export * from './metrics';
export * from './poll-clock';
export * from './redis';
export * from './replicas';
export * from './results';
export * from './stack';
export * from './terminates';
export * from './upstream-limit';
export * from './upstream-sends';
export * from './use-stack';
export * from './vault';
export * from './economy';
