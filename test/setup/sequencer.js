/**
 * The order test files start in: the longest first, so that the run does not end with one worker
 * still on a long file while the other has nothing left to do.
 *
 * Jest knows each file's duration from its previous runs on this machine, but a fresh clone (CI)
 * has none, and Jest then goes by file size, which says little here: the big files are the quick
 * rule tables of test/medium, while the fault, browser and hostile-input files, of middling size,
 * run for a minute or more. So a file without a recorded duration gets its duration from
 * test/setup/durations.json (seconds: the files of 5 s or more in a whole run of 2026-11-29 on this 2-core
 * machine, with one stack per worker; only their order matters),
 * and one in neither comes after them, biggest first. The browser tests wait for the bundle global setup builds in
 * the background (test/e2e/web-build.ts), so it is also told here whether any is in the run.
 */
const path = require('node:path');
const process = require('node:process');
const Sequencer = require('@jest/test-sequencer').default;
const durations = require('./durations.json');

class LongestFirstSequencer extends Sequencer {
  sort(tests) {
    const relative = (test) => path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/');
    if (tests.some((test) => relative(test).startsWith('test/e2e/'))) process.env.REFERRAL_TEST_BROWSER = '1';
    const sizes = new Map();
    const size = (test) => {
      if (!sizes.has(test.path)) sizes.set(test.path, test.context.hasteFS.getSize(test.path) ?? 0);
      return sizes.get(test.path);
    };
    for (const test of tests)
      test.duration = this.time(test) ?? (durations[relative(test)] === undefined ? undefined : durations[relative(test)] * 1000);
    return [...tests].sort((a, b) => {
      const failedA = this.hasFailed(a);
      if (failedA !== this.hasFailed(b)) return failedA ? -1 : 1;
      if ((a.duration === undefined) !== (b.duration === undefined)) return a.duration === undefined ? 1 : -1;
      if (a.duration !== undefined && a.duration !== b.duration) return b.duration - a.duration;
      return size(b) - size(a);
    });
  }
}

module.exports = LongestFirstSequencer;
