/**
 * Tests that need a program from outside npm (Debian's `redis-server` or Chromium) go
 * through one of the `describeWith…` helpers ({@link describeWithRedis} in redis.ts,
 * {@link describeWithBrowser} in browser.ts), built on {@link describeWithTool}:
 *
 * - the program is there: `describe`;
 * - it is missing: `describe.skip`, so Jest reports the tests as skipped (never as passed),
 *   and the run ends with one line per skipped group saying what was skipped and the
 *   `apt-get install` that enables it (test/support/skip-reporter.mjs, fed by global-setup.ts);
 * - it is missing and the group's `REQUIRE_…` variable is set (`.ci/run` sets both): one
 *   failing test that says what is missing.
 *
 * eslint.config.mjs rejects a test file that starts Redis or a browser outside these helpers.
 */

/**
 * The variable global-setup.ts names the run's children folder in: one file per child
 * process a test started (named by its pid, holding who started it), removed when it stops;
 * global-teardown.ts kills whatever is still listed and fails the run.
 */
export const CHILDREN_VARIABLE = 'STATEV_TEST_CHILDREN_DIR';

/** A program some tests need that `npm ci` does not install. */
export interface Tool {
  /** What the tests are called in messages: `Redis`, `browser`. */
  readonly label: string;
  /** The name of its `describeWith…` helper (skip-reporter.mjs finds the skipped groups' files by it). */
  readonly helper: string;
  /** The command that installs the program, e.g. `apt-get install -y redis-server`. */
  readonly install: string;
  /** The environment variable that turns a missing program into failing tests, e.g. `REQUIRE_REDIS`. */
  readonly requireVariable: string;
  /** The variable global-setup.ts passes the probe's answer on in (`''` when available), so each test file does not probe again. */
  readonly probeVariable: string;
  /** Why the tests cannot run here (what is missing), or null when they can. */
  readonly unavailableReason: () => string | null;
}

/** True when the tool's `REQUIRE_…` variable is set to anything but empty, `0`, `false` or `no`. */
export function isRequired(tool: Tool): boolean {
  const value = process.env[tool.requireVariable]?.trim().toLowerCase();
  return value !== undefined && !['', '0', 'false', 'no'].includes(value);
}

/**
 * {@link Tool.unavailableReason}, probed once per run by global-setup.ts (and once per test
 * file when Jest runs without it).
 */
export function toolUnavailable(tool: Tool): string | null {
  const probed = process.env[tool.probeVariable];
  if (probed !== undefined) return probed === '' ? null : probed;
  const reason = tool.unavailableReason();
  process.env[tool.probeVariable] = reason ?? '';
  return reason;
}

/**
 * `describe` when the tool is available; else `describe.skip`, or, with the tool's
 * `REQUIRE_…` variable set, one failing test naming what is missing. Decided when the test
 * file loads.
 *
 * @param reason - why it is unavailable (null: available); defaults to {@link toolUnavailable}
 */
export function describeWithTool(
  tool: Tool,
  name: string,
  body: () => void,
  reason: string | null = toolUnavailable(tool),
): void {
  if (reason === null) {
    describe(name, body);
  } else if (isRequired(tool)) {
    describe(name, () => {
      it(`needs ${tool.label === 'browser' ? 'a browser' : tool.label}`, () => {
        throw new Error(
          `${reason}, and ${tool.requireVariable} is set, so the ${tool.label} tests must run: ${tool.install}`,
        );
      });
    });
  } else {
    describe.skip(name, body);
  }
}
