// Mocha's spec reporter plus one closing line in the plain form CI reads:
// "mocha: N passed, N failed" (and ", N skipped" when any test is pending). When a test failed,
// a line before it names the run's log file (LATTICE_TEST_LOG, set by test/support/log-file.ts),
// where the services under test logged instead of the terminal.
// LATTICE_TEST_FAILURES_FILE (set by scripts/test-stress.sh): each failed test is appended to
// that file as one line, `<spec file> › <full title>`, so runs in a row can be counted.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    runner.on(Mocha.Runner.constants.EVENT_TEST_PASS, () => passed++);
    const failuresFile = process.env.LATTICE_TEST_FAILURES_FILE;
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (test) => {
      failed++;
      if (!failuresFile) return;
      const file = test.file ? path.relative(process.cwd(), test.file) : '(no file)';
      const title = test.fullTitle().replace(/\s+/g, ' ');
      fs.appendFileSync(failuresFile, `${file} › ${title}\n`);
    });
    runner.on(Mocha.Runner.constants.EVENT_TEST_PENDING, () => skipped++);
    // Registered after the spec reporter's own epilogue, and written synchronously: with
    // `exit: true` mocha ends the process right after the run, before any deferred write.
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const tail = skipped > 0 ? `, ${skipped} skipped` : '';
      const logFile = process.env.LATTICE_TEST_LOG;
      if (failed > 0 && logFile) {
        process.stdout.write(
          `mocha: service logs of this run are in ${path.relative(process.cwd(), logFile)}\n`,
        );
      }
      process.stdout.write(`mocha: ${passed} passed, ${failed} failed${tail}\n`);
    });
  }
}
module.exports = SummaryReporter;
