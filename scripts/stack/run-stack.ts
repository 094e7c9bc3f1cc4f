import { forkLauncher } from './member-process';
import { addressProblem, ephemeralPortWarning, readEphemeralPortRange } from './port-check';
import type { RestartPolicyOptions } from './restart-policy';
import { type MemberSpec, Supervisor } from './supervisor';

export interface StackProcessOptions {
  members: readonly MemberSpec[];
  stopTimeoutMs: number;
  restartPolicy?: RestartPolicyOptions;
  /** Said once every member has been started, after their pids. */
  banner?: string;
  /** How often to check that the process that started the supervisor is still there. */
  parentCheckEveryMs?: number;
}

const log = (line: string) => process.stderr.write(`stack: ${line}\n`);

/**
 * This process as the supervisor of the stack: starts the members, and stops them all, the
 * gateway first, on SIGINT, SIGTERM or SIGHUP, or when the process that started it is gone
 * (npm killed with SIGKILL leaves no one to forward a signal). Exits once every member has.
 */
export async function runStack(options: StackProcessOptions): Promise<never> {
  const problem = await addressProblem(options.members);
  if (problem) {
    log(problem);
    process.exit(1);
  }
  const warning = ephemeralPortWarning(options.members, readEphemeralPortRange());
  if (warning) log(warning);

  const supervisor = new Supervisor({
    members: options.members,
    launch: forkLauncher(),
    stopTimeoutMs: options.stopTimeoutMs,
    restartPolicy: options.restartPolicy,
    log,
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => void supervisor.stop(`${signal} received`));
  }
  const parent = process.ppid;
  const parentWatch = setInterval(() => {
    if (process.ppid !== parent) void supervisor.stop(`the process that started the stack (pid ${parent}) is gone`);
  }, options.parentCheckEveryMs ?? 500);

  supervisor.start();
  const started = Object.entries(supervisor.pids()).map(([name, pid]) => `${name} (pid ${pid})`);
  log(`started ${started.join(', ')}${options.banner ? `; ${options.banner}` : ''}`);

  const exitCode = await supervisor.finished;
  clearInterval(parentWatch);
  process.exit(exitCode);
}
