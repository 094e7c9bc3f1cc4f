import { ConfigError } from './config';

export interface RunningProcess {
  /** Stop taking work, finish or hand back what is running, close connections. */
  stop(): Promise<void>;
}

/**
 * Entry-point wrapper shared by every service and the gateway: starts the process, and on
 * SIGTERM/SIGINT stops it once, gracefully. A bad configuration ends the process with a
 * message naming the variable instead of a stack trace.
 */
export function runProcess(name: string, start: () => Promise<RunningProcess>): void {
  let running: RunningProcess | undefined;
  let stopping = false;

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${name}: ${signal} received, shutting down\n`);
    try {
      await running?.stop();
      process.exit(0);
    } catch (error) {
      process.stderr.write(`${name}: shutdown failed: ${String(error)}\n`);
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));

  // Through a promise, so a configuration error thrown while building start's arguments is caught too.
  Promise.resolve().then(start).then(
    (started) => {
      running = started;
    },
    (error: unknown) => {
      const message = error instanceof ConfigError ? error.message : (error as Error)?.stack ?? String(error);
      process.stderr.write(`${name}: failed to start: ${message}\n`);
      process.exit(1);
    },
  );
}
