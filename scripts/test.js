/**
 * `npm test`: the Jest suite and the static checks (types and ESLint per TypeScript project, knip,
 * Prettier) side by side, and fails if either fails. Jest's output comes as it runs; the checks'
 * (scripts/parallel.js) when they end.
 *
 * Why side by side: on the 2-core CI machine the checks took a minute of wall time before Jest began,
 * while Jest's own run leaves a core idle for much of its time (tests waiting on a stalled job's lock, a
 * process's start, a page's render). The checks run at a lower priority (nice), so they take the idle
 * time and leave the tests' timing as it was.
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

function run(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, options);
    child.once('error', (error) => {
      process.stderr.write(`${command}: ${String(error)}\n`);
      resolve(1);
    });
    child.once('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main() {
  const checkOutput = [];
  const checks = new Promise((resolve) => {
    const child = spawn('nice', ['-n', '10', 'node', 'scripts/parallel.js', ...CHECKS], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => checkOutput.push(chunk));
    child.stderr.on('data', (chunk) => checkOutput.push(chunk));
    child.once('error', (error) => {
      checkOutput.push(Buffer.from(`${String(error)}\n`));
      resolve(1);
    });
    child.once('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
  const jest = await run('jest', process.argv.slice(2), { stdio: 'inherit' });
  const checked = await checks;
  process.stdout.write(`\nstatic checks (${checked === 0 ? 'passed' : 'FAILED'}):\n${Buffer.concat(checkOutput).toString('utf8')}`);
  process.exitCode = jest === 0 && checked === 0 ? 0 : 1;
}

void main();
