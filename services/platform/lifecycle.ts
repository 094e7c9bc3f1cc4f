import { ConfigError } from './config';

export interface RunningProcess {
  /** Stop taking work, finish or hand back what is running, close connections. */
  stop(): Promise<void>;
}

/**
 * The exit code of a process that cannot start with its configuration (EX_CONFIG in sysexits.h).
 * A supervisor does not restart such a process: it would fail the same way until someone fixes it.
 */
export const EXIT_CONFIG_ERROR = 78;

/**
 * Entry-point wrapper shared by every service and the gateway: starts the process, and on
 * SIGTERM/SIGINT stops it once, gracefully. A bad configuration ends the process with a
 * message naming the variable instead of a stack trace, and with EXIT_CONFIG_ERROR.
 */
export function runProcess(name: string, start: () => Promise<RunningProcess>): void {
  let running: RunningProcess | undefined;
  let stopping = false;

  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${name}: ${why}, shutting down\n`);
    try {
      await running?.stop();
      process.exit(0);
    } catch (error) {
      process.stderr.write(`${name}: shutdown failed: ${String(error)}\n`);
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM received'));
  process.once('SIGINT', () => void stop('SIGINT received'));
  // Forked by a supervisor (`npm start`): the IPC channel closes when the supervisor is gone, even
  // killed with SIGKILL, and nobody would stop this process any more; stop now rather than run on
  // orphaned with the port held.
  if (process.channel) process.once('disconnect', () => void stop('the supervisor is gone (IPC channel closed)'));

  // Through a promise, so a configuration error thrown while building start's arguments is caught too.
  Promise.resolve()
    .then(start)
    .then(
      (started) => {
        running = started;
      },
      (error: unknown) => {
        const configuration = error instanceof ConfigError;
        const message = configuration ? error.message : ((error as Error)?.stack ?? String(error));
        process.stderr.write(`${name}: failed to start: ${message}\n`);
        process.exit(configuration ? EXIT_CONFIG_ERROR : 1);
      },
    );
}
