import type { Clock } from '../../services/platform/clock';

/** Cancels a scheduled callback; calling it after the callback ran does nothing. */
export type Cancel = () => void;

/**
 * Time as the supervisor sees it: "now" and callbacks later. Injected, so tests of the restart
 * backoff and of the kill deadline move time instead of waiting for it.
 */
export interface Timers extends Clock {
  schedule(delayMs: number, callback: () => void): Cancel;
}

export const systemTimers: Timers = {
  now: () => new Date(),
  schedule: (delayMs, callback) => {
    const timer = setTimeout(callback, delayMs);
    return () => clearTimeout(timer);
  },
};
