// A Jest reporter: at the end of the run, one line per group of tests skipped because a
// program is missing (Redis, Chromium; see tools.ts), saying what was skipped and how to
// enable it. Jest itself prints nothing for a test file whose tests were all skipped, so
// a note from the test file would be lost. The groups come from global-setup.ts; a test
// file belongs to a group when it calls the group's describeWith… helper (lint makes
// every file that starts Redis or a browser do so).
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

export default class SkipReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.groups = new Map(); // label → { group, tests, files }
  }

  onTestResult(_test, result) {
    if (result.numPendingTests === 0) return;
    const skipped = JSON.parse(process.env.STATEV_TEST_SKIPPED_TOOLS || '[]');
    if (skipped.length === 0) return;
    const source = readFileSync(result.testFilePath, 'utf8');
    for (const group of skipped) {
      if (!source.includes(`${group.helper}(`)) continue;
      const entry = this.groups.get(group.label) || { group, tests: 0, files: [] };
      entry.tests += result.numPendingTests;
      entry.files.push(relative(this.rootDir, result.testFilePath));
      this.groups.set(group.label, entry);
    }
  }

  onRunComplete() {
    const groups = [...this.groups.values()].sort((a, b) => a.group.label.localeCompare(b.group.label));
    for (const { group, tests, files } of groups) {
      const where = files.length === 1 ? files[0] : `${files.length} files`;
      process.stderr.write(
        `Skipped ${tests} ${group.label} test${tests === 1 ? '' : 's'} (${where}): ${group.reason}. To run them: ${group.install}\n`,
      );
    }
  }
}
