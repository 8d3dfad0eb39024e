/**
 * Jest's `globalSetup`: probes once per run for the programs some tests need (see
 * tools.ts) and leaves the answers in the environment, where every test file's
 * `describeWith…` helper reads them and skip-reporter.mjs finds what to report as skipped.
 */
import { BROWSER_TOOL } from './browser';
import { REDIS_TOOL } from './redis';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHILDREN_VARIABLE, isRequired, toolUnavailable } from './tools';

/** Describes the skipped groups to skip-reporter.mjs: a JSON array in this variable. */
const SKIPPED_VARIABLE = 'STATEV_TEST_SKIPPED_TOOLS';

export default function globalSetup(): void {
  const skipped = [REDIS_TOOL, BROWSER_TOOL].flatMap((tool) => {
    const reason = toolUnavailable(tool);
    // A required tool that is missing fails its tests instead: nothing to report as skipped.
    return reason === null || isRequired(tool)
      ? []
      : [{ label: tool.label, helper: tool.helper, reason, install: tool.install }];
  });
  process.env[SKIPPED_VARIABLE] = JSON.stringify(skipped);
  process.env[CHILDREN_VARIABLE] = mkdtempSync(join(tmpdir(), 'statev-test-children-'));
}
