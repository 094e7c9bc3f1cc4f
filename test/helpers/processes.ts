import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { readEphemeralPortRange } from '../../scripts/stack/port-check';

/** `node -r` this, and a TypeScript entry point runs from source (see scripts/register-ts.js). */
export const REGISTER_TS = path.join(__dirname, '../../scripts/register-ts.js');

/** Polls `check` until it returns something other than undefined/false, or fails after timeoutMs. */
export async function eventually<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Whether the process runs; an exited one that its (new) parent has not reaped yet does not. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // The state follows the command name, which may hold spaces and parentheses: "pid (name) Z ...".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc here: kill(pid, 0) has answered
  }
}

export interface NodeProcess {
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Settles when it has exited: its code, or the signal that ended it. */
  exited: Promise<ProcessEnd>;
  /**
   * Settles when it has exited and its output is closed, i.e. also every process that inherited
   * that output (the members of a supervisor) is gone.
   */
  closed: Promise<ProcessEnd>;
}

export interface ProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Starts a TypeScript entry point in a Node process of its own, output captured. */
export function startTs(entry: string, options: { env?: NodeJS.ProcessEnv; cwd?: string; args?: string[] } = {}): NodeProcess {
  const child = spawn(process.execPath, ['-r', REGISTER_TS, entry, ...(options.args ?? [])], {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<ProcessEnd>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const closed = new Promise<ProcessEnd>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  return { child, output: () => output, exited, closed };
}

/** Waits for a process (and whatever shares its output) to end, bounded; kills it and fails if it does not. */
export async function endOf(proc: NodeProcess, timeoutMs = 15_000): Promise<ProcessEnd> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const result = await Promise.race([proc.closed, timeout]);
  clearTimeout(timer);
  if (result === 'timeout') {
    proc.child.kill('SIGKILL');
    throw new Error(`process ${proc.child.pid} did not end within ${timeoutMs} ms; output:\n${proc.output()}`);
  }
  return result;
}

/**
 * A TCP port that nothing listens on right now (on 127.0.0.1), for a process that binds it later.
 * It is drawn below the kernel's ephemeral range: a port from listen(0) is ephemeral, and between
 * choosing it and binding it the kernel may hand it to an outgoing connection (to PostgreSQL, to
 * Redis) as its local port, and the bind fails. Ports below the range are only ever taken by a bind.
 */
export async function freePort(): Promise<number> {
  const [low, high] = portRangeBelowEphemeral();
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await portIsFree(port)) return port;
  }
  throw new Error(`no free port found between ${low} and ${high}`);
}

function portRangeBelowEphemeral(): [number, number] {
  // Not Linux: the IANA ephemeral range starts at 49152; below 32768 is safe there too.
  const ephemeralLow = readEphemeralPortRange()?.low ?? 32768;
  const high = Math.min(ephemeralLow, 49152);
  return [Math.max(10_000, high - 20_000), high];
}

/** Whether a port can be listened on (on 127.0.0.1) right now. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
