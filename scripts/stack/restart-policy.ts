import { EXIT_CONFIG_ERROR } from '../../services/platform/lifecycle';

/** How a member process ended: its exit code, or the signal that ended it. */
export interface MemberExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RestartPolicyOptions {
  /** The wait before the first restart; each further failure in a row doubles it. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** A member that ran this long before it exited was stable: its backoff starts again. */
  stableAfterMs: number;
  /** This many failures within failureWindowMs is a crash loop: stop restarting. */
  maxFailures: number;
  failureWindowMs: number;
}

/** Restarts after 1, 2, 4, 8 s...; the fifth failure within a minute gives up. */
export const DEFAULT_RESTART_POLICY: RestartPolicyOptions = {
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  stableAfterMs: 30_000,
  maxFailures: 5,
  failureWindowMs: 60_000,
};

export type ExitDecision =
  | { action: 'restart'; delayMs: number; failuresInWindow: number }
  /** The member said its configuration is wrong: a restart would fail the same way. */
  | { action: 'give-up'; because: 'configuration' }
  | { action: 'give-up'; because: 'crash-loop'; failuresInWindow: number };

/**
 * What to do when one member exits on its own (not because the stack is stopping): restart it
 * after an exponential backoff, or give up on a configuration error or a crash loop. One instance
 * per member; it remembers that member's recent failures.
 */
export class RestartPolicy {
  private failuresInARow = 0;
  private failureTimes: number[] = [];

  constructor(private readonly options: RestartPolicyOptions = DEFAULT_RESTART_POLICY) {}

  onExit(exit: MemberExit, ranForMs: number, nowMs: number): ExitDecision {
    if (exit.code === EXIT_CONFIG_ERROR) return { action: 'give-up', because: 'configuration' };
    if (ranForMs >= this.options.stableAfterMs) this.failuresInARow = 0;
    this.failuresInARow += 1;
    this.failureTimes = [...this.failureTimes.filter((at) => nowMs - at < this.options.failureWindowMs), nowMs];
    const failuresInWindow = this.failureTimes.length;
    if (failuresInWindow >= this.options.maxFailures) return { action: 'give-up', because: 'crash-loop', failuresInWindow };
    const delayMs = Math.min(this.options.initialDelayMs * 2 ** (this.failuresInARow - 1), this.options.maxDelayMs);
    return { action: 'restart', delayMs, failuresInWindow };
  }
}

/** "exit code 1" or "signal SIGKILL", for log lines. */
export function describeExit(exit: MemberExit): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}
