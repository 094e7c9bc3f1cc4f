import { fork } from 'node:child_process';
import type { MemberExit } from './restart-policy';
import type { LaunchMember } from './supervisor';

/**
 * Starts members as real Node processes: forked (so each has an IPC channel to the supervisor and
 * stops by itself when that channel closes, see runProcess), with the supervisor's environment
 * and Node flags plus the member's own. `output` is a file descriptor for their stdout and stderr
 * (default: the supervisor's own).
 *
 * Each member gets a process group of its own (detached), so Ctrl-C in a terminal reaches the
 * supervisor alone and the members stop in order, the gateway first, rather than all at once.
 */
export function forkLauncher(options: { output?: number } = {}): LaunchMember {
  const output = options.output ?? 'inherit';
  return (member) => {
    const child = fork(member.entry, [], {
      env: { ...process.env, ...member.env },
      execArgv: [...process.execArgv, ...(member.execArgv ?? [])],
      stdio: ['ignore', output, output, 'ipc'],
      detached: true,
    });
    const exited = new Promise<MemberExit>((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }));
      // Could not even be spawned: there will be no 'exit'.
      child.once('error', (error) => {
        if (child.pid === undefined) {
          process.stderr.write(`stack: could not start ${member.name}: ${error.message}\n`);
          resolve({ code: 1, signal: null });
        }
      });
    });
    return {
      pid: child.pid,
      signal: (signal) => {
        child.kill(signal);
      },
      exited,
    };
  };
}
