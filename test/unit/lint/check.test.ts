import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * scripts/lint/check.mjs, npm test's type check and lint, on a project of two files: it fails on a
 * type error and on a floating promise, and a re-run lints again the file that did not change when a
 * function it calls became async (the case ESLint's own --cache misses), while a re-run with nothing
 * changed lints nothing and still reports what is wrong.
 * The project lives inside the repository (ESLint lints only files under its config's folder), in a
 * folder no tsconfig includes; its caches go to a temporary folder.
 */
const ROOT = path.resolve(__dirname, '../../..');

const TSCONFIG = {
  compilerOptions: { target: 'ES2022', lib: ['ES2023'], module: 'node16', moduleResolution: 'node16', strict: true, types: [] },
  include: ['*.ts'],
};
const SEND = `export function send(message: string): void {\n  void message;\n}\n`;
const ASYNC_SEND = `export async function send(message: string): Promise<void> {\n  await Promise.resolve(message);\n}\n`;
const CALLER = `import { send } from './send';\n\nexport function notify(): void {\n  send('hello');\n}\n`;

let project: string;
let cache: string;

beforeAll(() => {
  project = fs.mkdtempSync(path.join(ROOT, '.check-fixture-'));
  cache = fs.mkdtempSync(path.join(os.tmpdir(), 'check-cache-'));
  fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  fs.writeFileSync(path.join(project, 'send.ts'), SEND);
  fs.writeFileSync(path.join(project, 'caller.ts'), CALLER);
});

afterAll(() => {
  fs.rmSync(project, { recursive: true, force: true });
  fs.rmSync(cache, { recursive: true, force: true });
});

function check(): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, ['scripts/lint/check.mjs', path.relative(ROOT, path.join(project, 'tsconfig.json'))], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, CHECK_CACHE_DIR: cache, FORCE_COLOR: '0' },
  });
  return { status: run.status, output: run.stdout + run.stderr };
}

it('passes a clean project, and fails on a floating promise in a file that did not change', () => {
  const clean = check();
  expect(clean).toMatchObject({ status: 0 });
  expect(clean.output).toContain('0 type error(s); linted 2 of 2 file(s)');

  fs.writeFileSync(path.join(project, 'send.ts'), ASYNC_SEND);
  const floating = check();
  expect(floating.status).toBe(1);
  expect(floating.output).toMatch(/caller\.ts\s+4:3\s+error\s+Promises must be awaited.*@typescript-eslint\/no-floating-promises/);
  expect(floating.output).toContain('linted 2 of 2 file(s)');

  const again = check();
  expect(again.status).toBe(1);
  expect(again.output).toContain('@typescript-eslint/no-floating-promises');
  expect(again.output).toContain('linted 0 of 2 file(s)');

  fs.writeFileSync(path.join(project, 'send.ts'), SEND);
  expect(check()).toMatchObject({ status: 0 });
});

it('fails on a type error', () => {
  fs.writeFileSync(path.join(project, 'caller.ts'), `${CALLER}export const count: number = 'one';\n`);
  const result = check();
  expect(result.status).toBe(1);
  expect(result.output).toContain("error TS2322: Type 'string' is not assignable to type 'number'.");
  expect(result.output).toContain('1 type error(s)');
  fs.writeFileSync(path.join(project, 'caller.ts'), CALLER);
});
