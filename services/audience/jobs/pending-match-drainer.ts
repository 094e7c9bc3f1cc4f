import type { Clock } from '../../platform/clock';
import type { RelayParticipant } from '../../platform/job-relay';
import type { Logger } from '../../platform/logger';
import type { MatchingWaker } from '../domain/incremental-matching';
import type { SegmentEvaluationService } from '../domain/segment-evaluation.service';
import type { PendingMatchRepository } from '../repositories/pending-matches.repository';

/** Users one matching transaction claims (a trait batch's most). */
export const USERS_PER_PASS = 10_000;

/**
 * Incremental matching from the pending table: users whose traits or metrics changed
 * wait there (written with the change), and are matched `debounceMs` after their earliest change,
 * a project's pending users together (a burst costs one pass, not one per change).
 *
 * When: after a commit recorded users (`wake`: a timer for one debounce later); and on the job
 * relay's passes (its first at start-up, then every RELAY_INTERVAL_MS), which match everything
 * due, so users a dead process left pending, or a pass that failed, are matched without waiting for
 * another change. Only where the relay runs (RUN_WORKERS): elsewhere `wake` does nothing and the
 * workers' passes take the users. Several processes drain safely: a pass claims its users with
 * SKIP LOCKED and removes them only with its match's commit.
 *
 * Due times are read on the injected clock; the timer's delay is the clock's distance to the due time.
 */
export class PendingMatchDrainer implements RelayParticipant, MatchingWaker {
  readonly name = 'incremental matching';
  private active = false;
  private timer: NodeJS.Timeout | undefined;
  /** Real time (Date.now) the timer fires at. */
  private timerFiresAt = Infinity;
  private running: Promise<void> | undefined;
  /** The latest cutoff asked for while a drain ran: drained right after it. */
  private again: number | undefined;

  constructor(
    private readonly evaluations: SegmentEvaluationService,
    private readonly pending: PendingMatchRepository,
    private readonly clock: Clock,
    private readonly debounceMs: number,
    private readonly logger: Logger,
  ) {}

  onStart(): void {
    this.active = true;
  }

  /** No more passes; waits for the one running (what it has not committed stays pending for the next process). */
  async onStop(): Promise<void> {
    this.active = false;
    this.clearTimer();
    await this.running?.catch(() => undefined);
  }

  /** A commit recorded pending users: match them one debounce from now. */
  wake(): void {
    if (this.active) this.plan(this.clock.now().getTime());
  }

  /** The relay's pass: every user due now (changed a debounce ago or more), then a timer for the next. */
  pass(): Promise<void> {
    return this.drain(this.clock.now().getTime() - this.debounceMs);
  }

  /** A timer for the users changed at or before `changedAt`, one debounce after it; a sooner timer already set stays. */
  private plan(changedAt: number): void {
    if (!this.active) return;
    const delay = Math.max(0, changedAt + this.debounceMs - this.clock.now().getTime());
    if (this.timer && this.timerFiresAt <= Date.now() + delay) return;
    this.clearTimer();
    this.timerFiresAt = Date.now() + delay;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerFiresAt = Infinity;
      this.drain(changedAt).catch((error: unknown) => this.logger.warn({ err: error }, 'incremental matching failed; the relay pass retries'));
    }, delay);
    this.timer.unref();
  }

  private clearTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerFiresAt = Infinity;
  }

  /** Matches every project with a user changed at or before `cutoff`. Drains never overlap: asking during one drains again right after. */
  private drain(cutoff: number): Promise<void> {
    if (this.running) {
      this.again = Math.max(this.again ?? cutoff, cutoff);
      return this.running;
    }
    this.running = (async () => {
      let next: number | undefined = cutoff;
      while (next !== undefined && this.active) {
        this.again = undefined;
        await this.drainOnce(next);
        next = this.again;
      }
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async drainOnce(cutoff: number): Promise<void> {
    const at = new Date(cutoff);
    // Projects whose users another pass holds, or whose pass failed: the relay's next pass retries them.
    const passedOver: string[] = [];
    for (;;) {
      if (!this.active) return;
      const projectId = await this.pending.dueProject(at, passedOver);
      if (projectId === undefined) break;
      try {
        const outcome = await this.evaluations.matchPending(projectId, USERS_PER_PASS);
        if (outcome) this.logger.debug({ project_id: projectId, ...outcome }, 'users matched incrementally');
        else passedOver.push(projectId);
      } catch (error) {
        passedOver.push(projectId);
        this.logger.error(
          { err: error, project_id: projectId },
          'incremental matching of a project failed; its users stay pending for the next pass',
        );
      }
    }
    // Users changed since the cutoff: their own timer (their commits' wakes may have found this one set).
    const later = await this.pending.earliestAfter(at);
    if (later) this.plan(later.getTime());
  }
}
