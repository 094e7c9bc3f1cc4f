/**
 * `node scripts/parallel.js "<command>" "<command>" ...`: runs the commands side by side (through
 * the shell, as npm runs scripts) and fails if any fails. Each command's output is printed whole
 * when it ends, under its name, so that two commands' errors never interleave.
 *
 * `npm test` checks the types and the lint this way before the tests: each of its two checks
 * (scripts/lint/check.mjs, one per TypeScript project) is single-threaded.
 */
const { spawn } = require('node:child_process');
const { Buffer } = require('node:buffer');
const process = require('node:process');

const commands = process.argv.slice(2);
if (commands.length === 0) {
  process.stderr.write('usage: node scripts/parallel.js "<command>" ["<command>" ...]\n');
  process.exit(2);
}

const runs = commands.map(
  (command) =>
    new Promise((resolve) => {
      const started = Date.now();
      const child = spawn(command, { shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
      const output = [];
      child.stdout.on('data', (chunk) => output.push(chunk));
      child.stderr.on('data', (chunk) => output.push(chunk));
      child.once('error', (error) => output.push(Buffer.from(`${String(error)}\n`)));
      child.once('close', (code, signal) => {
        const ok = code === 0;
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        process.stdout.write(`${ok ? 'ok' : 'FAILED'} (${signal ?? code}, ${seconds} s): ${command}\n`);
        process.stdout.write(Buffer.concat(output));
        resolve(ok);
      });
    }),
);

void Promise.all(runs).then((results) => {
  process.exitCode = results.every(Boolean) ? 0 : 1;
});
