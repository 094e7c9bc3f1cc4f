import type { Clock } from '../../services/platform/clock';

/** A clock that moves only when a test moves it. */
export class TestClock implements Clock {
  private current: number;

  constructor(start: Date | string = '2026-11-21T12:00:00.000Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(to: Date | string): void {
    this.current = new Date(to).getTime();
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
