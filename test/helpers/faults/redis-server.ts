import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { freePort } from '../processes';

/** How long a fresh redis-server may take to answer PING. */
const START_TIMEOUT_MS = 10_000;

/**
 * A Redis server of the test's own (the `redis-server` binary, no persistence), on a port of its
 * own, so a test can take Redis away mid-work and bring it back EMPTY, as when Redis loses its
 * data, without disturbing any other test.
 */
export class RedisServer {
  private process: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<RedisServer> {
    const server = new RedisServer(await freePort());
    await server.startEmpty();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.process !== undefined;
  }

  /** Starts the server on its port, with no data (there is no persistence to load from). */
  async startEmpty(): Promise<void> {
    if (this.process) throw new Error('this Redis server is already running');
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no', '--loglevel', 'warning'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    this.process = child;
    const exited = new Promise<never>((_resolve, reject) =>
      child.once('exit', (code) => reject(new Error(`redis-server on port ${this.port} exited (${code}): ${stderr}`))),
    );
    exited.catch(() => undefined);
    await Promise.race([waitForPong(this.port, START_TIMEOUT_MS), exited]);
  }

  /** Kills the server (SIGKILL: no goodbye to the clients, nothing saved), and waits until it is gone. */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child) return;
    this.process = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}

async function waitForPong(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await ping(port)) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.setTimeout(500, () => socket.destroy());
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (answer.includes('\r\n')) socket.end();
    });
    socket.on('close', () => resolve(answer.startsWith('+PONG')));
    socket.on('error', () => undefined);
  });
}
