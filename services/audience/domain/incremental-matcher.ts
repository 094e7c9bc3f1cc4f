import type { Logger } from '../../common/logger';
import { type ConditionInputsListener, type UserRef, userKey } from './condition-inputs';
import type { SegmentEvaluationService } from './segment-evaluation.service';

/**
 * The incremental matching (issue 11 §2): users whose traits or metrics changed are collected per
 * project for `debounceMs`, then matched together against the project's dynamic segments (one
 * statement per segment, restricted to them). A burst of changes costs one pass, not one per change.
 *
 * What is collected lives in memory: a process that dies before the pass loses it, and the next
 * full evaluation of a segment catches those users up (the inputs themselves are committed).
 */
export class IncrementalMatcher implements ConditionInputsListener {
  private readonly pending = new Map<string, Map<string, UserRef>>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly passes = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly evaluations: SegmentEvaluationService,
    private readonly debounceMs: number,
    private readonly logger: Logger,
  ) {}

  async onUsersChanged(projectId: string, users: readonly UserRef[]): Promise<void> {
    if (this.stopped || users.length === 0) return;
    let collected = this.pending.get(projectId);
    if (!collected) this.pending.set(projectId, (collected = new Map()));
    for (const user of users) collected.set(userKey(user), user);
    if (!this.timers.has(projectId)) {
      const timer = setTimeout(() => this.pass(projectId), this.debounceMs);
      timer.unref();
      this.timers.set(projectId, timer);
    }
  }

  /** Runs what is collected now, without waiting for the timers (shutdown, tests). */
  async flush(): Promise<void> {
    for (const projectId of [...this.timers.keys()]) this.pass(projectId);
    await Promise.all(this.passes);
  }

  /** Takes no more, drops what is collected (the next full evaluations catch it up) and waits for running passes. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.pending.clear();
    await Promise.all(this.passes);
  }

  private pass(projectId: string): void {
    clearTimeout(this.timers.get(projectId));
    this.timers.delete(projectId);
    const users = [...(this.pending.get(projectId)?.values() ?? [])];
    this.pending.delete(projectId);
    if (users.length === 0) return;
    const running = this.evaluations
      .matchUsers(projectId, users)
      .then((changed) => this.logger.debug({ project_id: projectId, users: users.length, changed }, 'users matched incrementally'))
      .catch((error: unknown) => this.logger.error({ err: error, project_id: projectId, users: users.length }, 'incremental matching failed; the next full evaluation catches these users up'))
      .finally(() => this.passes.delete(running));
    this.passes.add(running);
  }
}
