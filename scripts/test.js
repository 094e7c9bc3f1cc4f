/**
 * `npm test`, once pretest has checked for Chromium and generated the code: Jest, and beside it the
 * static checks (type checks and lint of both TypeScript projects, knip, Prettier) at the lowest CPU
 * priority (the idle scheduling class). On a 2-core machine Jest leaves part of the CPU idle while it waits on browsers,
 * PostgreSQL, processes starting and timers; the checks run in that idle time instead of before
 * Jest, where they took 50 to 145 s of a fresh clone's run. In the idle class they take nothing from
 * Jest when it does need the CPU, so the tests' timing is as before.
 *
 * Jest's output streams as usual; each check's output is printed whole after the tests, under its
 * name. Fails if Jest or any check fails. Arguments go to Jest (`npm test -- test/unit`).
 */
const { spawn } = require('node:child_process');
const { Buffer } = require('node:buffer');
const process = require('node:process');

const CHECKS = [
  'node scripts/lint/check.mjs tsconfig.json',
  'node scripts/lint/check.mjs web/tsconfig.json --others tsconfig.json',
  'knip --no-progress',
  'prettier --check . --log-level warn',
];

/**
 * Runs `command` through the shell at the idle scheduling class (SCHED_IDLE, `chrt --idle 0`; nice 19 where
 * chrt is missing), its output kept for later. Nice 19 was not enough: a niced check still runs whenever a
 * test's process sleeps for a moment and delays it when it wakes, which slowed the whole suite by more than the
 * checks cost when they ran first. An idle-class process yields to a waking test at once.
 */
function runCheck(command) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(
      'sh',
      ['-c', `if command -v chrt >/dev/null; then exec chrt --idle 0 sh -c "$0"; else exec nice -n 19 sh -c "$0"; fi`, command],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.once('error', (error) => output.push(Buffer.from(`${String(error)}\n`)));
    child.once('close', (code, signal) => {
      resolve({ command, ok: code === 0, status: signal ?? code, seconds: (Date.now() - started) / 1000, output: Buffer.concat(output) });
    });
  });
}

function runJest(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [require.resolve('jest/bin/jest'), ...args], { stdio: 'inherit' });
    child.once('error', (error) => {
      process.stderr.write(`could not start Jest: ${String(error)}\n`);
      resolve(false);
    });
    child.once('close', (code) => resolve(code === 0));
  });
}

async function main() {
  const checks = Promise.all(CHECKS.map(runCheck));
  const jestPassed = await runJest(process.argv.slice(2));
  const results = await checks;
  process.stdout.write('\nStatic checks (run beside the tests in the idle scheduling class):\n');
  for (const result of results) {
    process.stdout.write(`${result.ok ? 'ok' : 'FAILED'} (${result.status}, ${result.seconds.toFixed(1)} s): ${result.command}\n`);
    process.stdout.write(result.output);
  }
  const checksPassed = results.every((result) => result.ok);
  if (!checksPassed) process.stdout.write('A static check failed: its output is above.\n');
  process.exitCode = jestPassed && checksPassed ? 0 : 1;
}

void main();
