import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtFrom as bundleBuiltFrom, inputsHash, markBuilt, WEB_BUNDLE } from '../../scripts/build/inputs';
import { isAlive } from '../helpers/processes';

const ROOT = path.resolve(__dirname, '../..');
const WEB = path.join(ROOT, 'web');
/** Held (it names the holder's pid) while a process builds web/dist: the others wait for that build instead of starting their own. */
const LOCK = path.join(WEB, 'dist.build-lock');
/** A build takes ~15 s of CPU; on a loaded machine, beside the suite's two workers, several times that. */
const BUILD_WAIT_MS = 300_000;

/** A hash of everything the bundle is built from (the same stamp as `npm run build`'s, scripts/build/inputs.ts). */
function sourcesHash(): string {
  return inputsHash(ROOT, WEB_BUNDLE);
}

function builtFrom(hash: string): boolean {
  return bundleBuiltFrom(ROOT, WEB_BUNDLE, hash);
}

/** Takes the build lock if no living process holds it (a dead holder's lock is taken over). */
function tryLock(): boolean {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(LOCK, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder = NaN;
    try {
      holder = Number(readFileSync(LOCK, 'utf8'));
    } catch {
      // Released meanwhile: try again.
    }
    // A holder that has not written its pid yet is alive (the file is written right after it is made).
    if (Number.isInteger(holder) && holder > 0 && isAlive(holder)) return false;
    if (Number.isInteger(holder) && holder > 0) rmSync(LOCK, { force: true });
    else return false;
  }
  return false;
}

function unlock(): void {
  rmSync(LOCK, { force: true });
}

/** `vite build web`, the production bundle. Vite only strips types, so the generated API types are not needed here (the type check covers them). */
function spawnViteBuild(): ChildProcess {
  return spawn(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', 'web', '--logLevel', 'warn'], {
    cwd: ROOT,
    // Jest sets NODE_ENV=test, which Vite would keep: the bundle under test is the production one.
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs the build under the lock (already taken); the stamp is written only when it succeeded. */
function build(hash: string): { child: ChildProcess; done: Promise<void> } {
  const child = spawnViteBuild();
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const done = new Promise<void>((resolve, reject) => {
    child.once('error', (error) => {
      unlock();
      reject(error);
    });
    child.once('close', (code, signal) => {
      if (code === 0) markBuilt(ROOT, WEB_BUNDLE, hash);
      unlock();
      if (code === 0) resolve();
      else reject(new Error(`vite build web failed (${signal ?? code}):\n${output.slice(-4000)}`));
    });
  });
  return { child, done };
}

/**
 * Makes sure web/dist (what the gateway serves under /app) was built from these very sources: one
 * build per change, not per test file. Global setup starts it in the background when the run holds
 * browser tests (startWebBuildInBackground); a test file then waits for that build, and builds
 * only if none is under way (e.g. the build failed: its error then fails the test).
 */
export async function buildWebApp(): Promise<void> {
  const hash = sourcesHash();
  const deadline = Date.now() + BUILD_WAIT_MS;
  for (;;) {
    if (builtFrom(hash)) return;
    if (tryLock()) {
      // Built by the holder we waited for, just before it let go.
      if (builtFrom(hash)) {
        unlock();
        return;
      }
      await build(hash).done;
      return;
    }
    if (Date.now() > deadline) throw new Error(`web/dist was still being built after ${BUILD_WAIT_MS} ms (lock ${LOCK})`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

type Background = { child: ChildProcess; done: Promise<void> };
// Kept on globalThis: Jest may load global setup and teardown as separate module instances.
const state = globalThis as { __referralWebBuild?: Background };

/**
 * For global setup: starts building web/dist beside the first test files, unless it is built from
 * these sources already or another process is building it. The browser tests start later (the
 * longest files go first, test/setup/sequencer.js) and wait for it in buildWebApp.
 */
export function startWebBuildInBackground(): void {
  const hash = sourcesHash();
  if (builtFrom(hash) || !tryLock()) return;
  const background = build(hash);
  // Beside the test files (whose set-ups have timeouts), the build takes the CPU they leave.
  if (background.child.pid !== undefined) {
    try {
      os.setPriority(background.child.pid, 10);
    } catch {
      // Not allowed here: it builds at the normal priority.
    }
  }
  // A failure is reported by the browser test that then builds again, with the error.
  background.done.catch(() => undefined);
  state.__referralWebBuild = background;
}

/** For global teardown: a build still running (a run with no browser test left to wait for it) is stopped. */
export async function stopWebBuild(): Promise<void> {
  const background = state.__referralWebBuild;
  state.__referralWebBuild = undefined;
  if (!background) return;
  if (background.child.exitCode === null && background.child.signalCode === null) background.child.kill('SIGTERM');
  await background.done.catch(() => undefined);
}
