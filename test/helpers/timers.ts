import type { Cancel, Timers } from '../../scripts/stack/timers';
import { TestClock } from './clock';

interface Scheduled {
  at: number;
  order: number;
  callback: () => void;
}

/** Timers on a TestClock: callbacks run when a test advances the clock past their time. */
export class TestTimers extends TestClock implements Timers {
  private scheduled: Scheduled[] = [];
  private order = 0;

  schedule(delayMs: number, callback: () => void): Cancel {
    const entry = { at: this.now().getTime() + delayMs, order: (this.order += 1), callback };
    this.scheduled.push(entry);
    return () => {
      this.scheduled = this.scheduled.filter((other) => other !== entry);
    };
  }

  /** The delays, from now, of the callbacks still waiting, soonest first. */
  pending(): number[] {
    const now = this.now().getTime();
    return this.sorted().map((entry) => entry.at - now);
  }

  /** Moves time forward, running every callback that falls due on the way, in order. */
  override advance(ms: number): void {
    const end = this.now().getTime() + ms;
    for (;;) {
      const next = this.sorted()[0];
      if (!next || next.at > end) break;
      this.scheduled = this.scheduled.filter((entry) => entry !== next);
      this.set(new Date(next.at));
      next.callback();
    }
    this.set(new Date(end));
  }

  private sorted(): Scheduled[] {
    return [...this.scheduled].sort((a, b) => a.at - b.at || a.order - b.order);
  }
}
