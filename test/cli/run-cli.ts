import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REGISTER_TS } from '../helpers/processes';

/** The CLI's entry point, run from source (the built dist/cli/main.js is the same code compiled by tsc). */
const CLI = path.resolve(__dirname, '../../cli/main.ts');

/**
 * A test that runs the CLI several times: each run is a process that compiles the sources on load,
 * which on a loaded machine (the suite's workers beside it) takes seconds.
 */
export const CLI_TEST_TIMEOUT_MS = 180_000;

export interface CliRun {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Its exit code, or the signal that ended it. */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `referral <args>` in a process of its own, with the configuration in its environment only. */
export function startCli(args: string[], env: Record<string, string>): CliRun {
  const child = spawn(process.execPath, ['-r', REGISTER_TS, CLI, ...args], {
    // Nothing of the test's own environment that the CLI reads may leak in.
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, ended };
}

/** Runs `referral <args>` to its end: its exit code and what it wrote. */
export async function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = startCli(args, env);
  const { code } = await run.ended;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

/** A folder of files for one test file, removed by `remove()`. */
export function scratchFolder() {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'referral-cli-'));
  return {
    folder,
    file(name: string, content: string): string {
      const file = path.join(folder, name);
      writeFileSync(file, content);
      return file;
    },
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}
