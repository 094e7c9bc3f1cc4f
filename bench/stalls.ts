/**
 * Stalls of a closed-loop load: moments when most connections were slow at once, with their
 * wall-clock times, so they can be set beside what else happened then (PostgreSQL's log of
 * checkpoints and autovacuum, --trace-gc of the stack, other work on the machine). A slow request
 * alone is the request's own cost; every connection slow at the same moment is something shared.
 */
import type pg from 'pg';
import { fmt, table } from './report';

export interface SlowRequest {
  label: string;
  /** Wall-clock start, ms since the epoch. */
  startedAt: number;
  ms: number;
}

export interface Stall {
  from: number;
  to: number;
  requests: SlowRequest[];
}

/** Requests this slow are kept (a page's usual cost is a few ms to a few tens). */
export const SLOW_REQUEST_MS = 150;

/** Records the slow requests of a run. */
export class SlowRequests {
  readonly requests: SlowRequest[] = [];

  record(label: string, startedAtPerformanceMs: number, ms: number): void {
    if (ms >= SLOW_REQUEST_MS) this.requests.push({ label, startedAt: performance.timeOrigin + startedAtPerformanceMs, ms });
  }
}

/** Slow requests that overlapped in time, grouped; only groups of at least `minRequests` (most of the connections) count as stalls. */
export function stalls(slow: readonly SlowRequest[], minRequests: number): Stall[] {
  const sorted = [...slow].sort((a, b) => a.startedAt - b.startedAt);
  const groups: Stall[] = [];
  for (const request of sorted) {
    const last = groups[groups.length - 1];
    const end = request.startedAt + request.ms;
    if (last && request.startedAt <= last.to) {
      last.requests.push(request);
      last.to = Math.max(last.to, end);
    } else {
      groups.push({ from: request.startedAt, to: end, requests: [request] });
    }
  }
  return groups.filter((group) => group.requests.length >= minRequests);
}

const clock = (epochMs: number) => new Date(epochMs).toISOString().slice(11, 23);

export function stallTable(found: readonly Stall[]): string {
  if (found.length === 0) return '(none)';
  return table(
    ['from (UTC)', 'to (UTC)', 'slow requests', 'slowest', 'cases'],
    found.map((stall) => [
      clock(stall.from),
      clock(stall.to),
      fmt.int(stall.requests.length),
      fmt.ms(Math.max(...stall.requests.map((request) => request.ms))),
      stall.requests
        .map((request) => request.label)
        .slice(0, 2)
        .join('; '),
    ]),
  );
}

export interface CheckpointCounters {
  timed: number;
  requested: number;
  writeMs: number;
  syncMs: number;
}

/** PostgreSQL's checkpoint counters (server-wide: every database on it, other work's included). */
export async function checkpointCounters(db: pg.Client): Promise<CheckpointCounters> {
  const row = (
    await db.query<{ timed: string; requested: string; write_ms: number; sync_ms: number }>(
      'SELECT checkpoints_timed AS timed, checkpoints_req AS requested, checkpoint_write_time AS write_ms, checkpoint_sync_time AS sync_ms FROM pg_stat_bgwriter',
    )
  ).rows[0]!;
  return { timed: Number(row.timed), requested: Number(row.requested), writeMs: Number(row.write_ms), syncMs: Number(row.sync_ms) };
}

export function checkpointsBetween(before: CheckpointCounters, after: CheckpointCounters): string {
  const timed = after.timed - before.timed;
  const requested = after.requested - before.requested;
  return (
    `${timed + requested} checkpoints on the server (${requested} requested, e.g. by CREATE/DROP DATABASE; ${timed} timed), ` +
    `writing ${fmt.s((after.writeMs - before.writeMs) / 1000)} and syncing ${fmt.s((after.syncMs - before.syncMs) / 1000)}`
  );
}

export interface EventLoopGap {
  /** Wall-clock start, ms since the epoch. */
  at: number;
  ms: number;
}

/** A gap this long between timer ticks of this process is a pause of the load generator itself (or of the whole machine). */
const GAP_MS = 100;
const TICK_MS = 10;

/**
 * Watches this process's own event loop during a run: a stall that shows here too was not the
 * stack's (the load generator was paused: its GC, or the machine's CPU given to other work).
 */
export class EventLoopGaps {
  readonly gaps: EventLoopGap[] = [];
  private timer: NodeJS.Timeout | undefined;

  start(): void {
    let last = performance.now();
    this.timer = setInterval(() => {
      const now = performance.now();
      if (now - last >= GAP_MS) this.gaps.push({ at: performance.timeOrigin + last, ms: now - last });
      last = now;
    }, TICK_MS);
  }

  stop(): EventLoopGap[] {
    clearInterval(this.timer);
    return this.gaps;
  }
}

export function gapLine(gaps: readonly EventLoopGap[]): string {
  if (gaps.length === 0) return `the load generator's event loop: no gap of ${GAP_MS} ms or more`;
  const longest = [...gaps].sort((a, b) => b.ms - a.ms).slice(0, 5);
  return (
    `the load generator's event loop stood still ${gaps.length} times for ${GAP_MS} ms or more; the longest: ` +
    longest.map((gap) => `${clock(gap.at)} ${fmt.ms(gap.ms)}`).join(', ')
  );
}
