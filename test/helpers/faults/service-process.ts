import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { HealthCheckResponse_ServingStatus, HealthClient } from '../../../gen/grpc/health/v1/health';
import { createGrpcClient } from '../../../services/platform/grpc/client';
import { REGISTER_TS } from '../processes';

const REPO_ROOT = path.resolve(__dirname, '../../..');
/** How long a service may take from spawn to a SERVING health check (TypeScript compiled on the fly, on a busy machine). */
const START_TIMEOUT_MS = 45_000;
/** Lines of output kept per process, for assertions and for the message of a failed test. */
const KEPT_LINES = 20_000;

/** How a process says it is ready. */
export type Readiness =
  /**
   * A service: its gRPC health check says SERVING for `healthName` (a fully qualified gRPC service
   * name) on `grpcPort`, fixed, so a restarted process is found where the gateway expects it.
   */
  | { grpcPort: number; healthName: string }
  /** The gateway: its `/readyz` on `httpPort` (fixed, as a service's gRPC port) answers 200. */
  | { httpPort: number };

export type ServiceProcessOptions = Readiness & {
  /** For messages, e.g. "audience". */
  name: string;
  /** The entry point, relative to the repository root, e.g. services/audience/main.ts. */
  entry: string;
  env: Record<string, string>;
};

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A service (or the gateway) as a real child process, started from its own main.ts (the TypeScript
 * sources, no build) the way it runs in production: it can be killed with SIGKILL mid-work, stopped
 * with SIGTERM, and started again on the same port, database and Redis. Its log lines are kept.
 */
export class ServiceProcess {
  private child: ChildProcess | undefined;
  private exit: Promise<Exit> | undefined;
  private readonly lines: string[] = [];
  private starts = 0;

  private constructor(private readonly options: ServiceProcessOptions) {}

  static async start(options: ServiceProcessOptions): Promise<ServiceProcess> {
    const service = new ServiceProcess(options);
    await service.restart();
    return service;
  }

  /** Where the process listens: its gRPC address (a service), or its HTTP port's (the gateway). */
  get address(): string {
    return `127.0.0.1:${'grpcPort' in this.options ? this.options.grpcPort : this.options.httpPort}`;
  }

  /** As in its log lines, e.g. "claim-2". */
  get name(): string {
    return this.options.name;
  }

  /** The running incarnation's process id. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Every line the process (all its incarnations) wrote to stdout or stderr. */
  output(): string[] {
    return this.lines;
  }

  /** Lines that contain `text`. */
  linesWith(text: string): string[] {
    return this.lines.filter((line) => line.includes(text));
  }

  /** Starts the process (again), and resolves once its gRPC health check says SERVING. */
  async restart(): Promise<void> {
    if (this.child) throw new Error(`${this.options.name} is still running`);
    this.starts += 1;
    const incarnation = this.starts;
    const listen =
      'grpcPort' in this.options
        ? { GRPC_HOST: '127.0.0.1', GRPC_PORT: String(this.options.grpcPort) }
        : { HOST: '127.0.0.1', PORT: String(this.options.httpPort) };
    const child = spawn(process.execPath, ['--enable-source-maps', '-r', REGISTER_TS, this.options.entry], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...this.options.env, ...listen },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    for (const stream of [child.stdout, child.stderr]) {
      let partial = '';
      stream?.on('data', (chunk: Buffer) => {
        const text = partial + chunk.toString('utf8');
        const complete = text.split('\n');
        partial = complete.pop() ?? '';
        for (const line of complete) if (line) this.keep(`[${this.options.name}#${incarnation}] ${line}`);
      });
    }
    this.exit = new Promise<Exit>((resolve) =>
      child.once('exit', (code, signal) => {
        if (this.child === child) this.child = undefined;
        this.keep(`[${this.options.name}#${incarnation}] exited (${signal ?? code})`);
        resolve({ code, signal });
      }),
    );
    // One that does not become ready is not left running behind the failed test.
    await this.waitUntilServing().catch(async (error: unknown) => {
      await this.stop();
      throw error;
    });
  }

  /** SIGKILL: the process dies mid-work, with no chance to clean up; resolves once it is gone. */
  async kill(): Promise<Exit> {
    return this.signal('SIGKILL');
  }

  /**
   * SIGTERM, as an orchestrator stops a process, and waits up to `timeoutMs` for it to exit.
   * Undefined if it did not (it is then killed, so the test can go on).
   */
  async terminate(timeoutMs: number): Promise<(Exit & { elapsedMs: number }) | undefined> {
    const exit = this.exit;
    const child = this.child;
    if (!child || !exit) throw new Error(`${this.options.name} is not running`);
    const startedAt = Date.now();
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([exit, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)))]);
    clearTimeout(timer);
    if (!outcome) {
      await this.kill();
      return undefined;
    }
    return { ...outcome, elapsedMs: Date.now() - startedAt };
  }

  /** Kills the process if it runs (for afterAll). */
  async stop(): Promise<void> {
    if (this.child) await this.kill();
  }

  private async signal(signal: NodeJS.Signals): Promise<Exit> {
    const exit = this.exit;
    if (!this.child || !exit) throw new Error(`${this.options.name} is not running`);
    this.child.kill(signal);
    return exit;
  }

  private async waitUntilServing(): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (!this.child) throw new Error(`${this.options.name} exited while starting:\n${this.lines.slice(-30).join('\n')}`);
      if (await this.serving()) return;
      if (Date.now() > deadline) {
        throw new Error(`${this.options.name} was not serving ${START_TIMEOUT_MS} ms after start:\n${this.lines.slice(-30).join('\n')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** One health check on a fresh channel (a channel that failed to connect would wait out its reconnect backoff), or one GET of /readyz. */
  private async serving(): Promise<boolean> {
    if (!('healthName' in this.options)) {
      const answer = await fetch(`http://${this.address}/readyz`, { signal: AbortSignal.timeout(1_000) }).catch(() => undefined);
      await answer?.arrayBuffer().catch(() => undefined);
      return answer?.status === 200;
    }
    const health = createGrpcClient(HealthClient, this.address, 1_000);
    try {
      const answer = await health.call.check({ service: this.options.healthName }).catch(() => undefined);
      return answer?.status === HealthCheckResponse_ServingStatus.SERVING;
    } finally {
      health.close();
    }
  }

  private keep(line: string): void {
    this.lines.push(line);
    if (this.lines.length > KEPT_LINES) this.lines.splice(0, this.lines.length - KEPT_LINES);
  }
}
