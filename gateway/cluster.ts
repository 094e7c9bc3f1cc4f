import cluster from 'node:cluster';
import { EXIT_CONFIG_ERROR } from '../services/platform/lifecycle';

/** A worker that exits this soon after starting failed to start: restarting it would only loop. */
const START_GRACE_MS = 10_000;
const RESTART_DELAY_MS = 1_000;

/**
 * Runs `workers` gateway processes sharing one port (node:cluster). Node serves HTTP on one core per
 * process, so on a machine of its own the gateway needs one worker per core. (In a cluster of
 * containers, prefer more replicas of one worker each.) The primary only supervises: it restarts a
 * worker that dies, stops when one cannot start, and passes SIGTERM on for a graceful stop.
 */
export function runGatewayCluster(workers: number): void {
  let stopping = false;
  const startedAt = new Map<number, number>();
  const fork = () => {
    const worker = cluster.fork();
    startedAt.set(worker.id, Date.now());
  };

  cluster.on('exit', (worker, code, signal) => {
    const livedMs = Date.now() - (startedAt.get(worker.id) ?? 0);
    startedAt.delete(worker.id);
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    if (code !== 0 && livedMs < START_GRACE_MS) {
      process.stderr.write(`gateway: a worker failed to start (exit ${signal ?? code}); stopping\n`);
      // Passed on, so a supervisor above (npm start) knows a restart would fail the same way.
      stop(code === EXIT_CONFIG_ERROR ? EXIT_CONFIG_ERROR : 1);
      return;
    }
    process.stderr.write(`gateway: worker ${worker.process.pid} exited (${signal ?? code}); starting another\n`);
    setTimeout(fork, RESTART_DELAY_MS);
  });

  let exitCode = 0;
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    const running = Object.values(cluster.workers ?? {});
    if (running.length === 0) process.exit(exitCode);
    for (const worker of running) worker?.process.kill('SIGTERM');
  };
  process.once('SIGTERM', () => stop(0));
  process.once('SIGINT', () => stop(0));
  // Forked by npm start's supervisor: stop with it, even when it was killed (see runProcess).
  if (process.channel) process.once('disconnect', () => stop(0));
  process.on('exit', () => {
    if (stopping) process.exitCode = exitCode;
  });

  for (let i = 0; i < workers; i += 1) fork();
}
