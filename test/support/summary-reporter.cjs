// Mocha's spec reporter plus one closing line in the plain form CI reads:
// "mocha: N passed, N failed" (and ", N skipped" when any test is pending).
'use strict';
const Mocha = require('mocha');

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    runner.on(Mocha.Runner.constants.EVENT_TEST_PASS, () => passed++);
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, () => failed++);
    runner.on(Mocha.Runner.constants.EVENT_TEST_PENDING, () => skipped++);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const tail = skipped > 0 ? `, ${skipped} skipped` : '';
      process.stdout.on('drain', () => {});
      setImmediate(() => console.log(`mocha: ${passed} passed, ${failed} failed${tail}`));
    });
  }
}
module.exports = SummaryReporter;
