import { AFFILIATE_STATS_DAYS } from '../../rules/contract-limits';
import { invalidFields } from '../../rules/errors';
import type { StatsRange } from '../repositories/affiliate-stats.repository';

const DAY_MS = 86_400_000;

const startOfUtcDay = (at: Date): Date => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);

/**
 * The whole UTC days [from, to] of a stats request: `to` defaults to today, `from` to 29 days
 * before `to`. An instant inside a day stands for that day. Refused (400, naming the field) when
 * `from` is after `to` or the range spans more than AFFILIATE_STATS_DAYS.max days.
 */
export function statsRange(from: Date | undefined, to: Date | undefined, now: Date): StatsRange {
  const last = startOfUtcDay(to ?? now);
  const first = from === undefined ? new Date(last.getTime() - (AFFILIATE_STATS_DAYS.default - 1) * DAY_MS) : startOfUtcDay(from);
  const days = Math.round((last.getTime() - first.getTime()) / DAY_MS) + 1;
  if (days < 1) throw invalidFields([{ field: 'from', reason: 'must not be after `to`' }]);
  if (days > AFFILIATE_STATS_DAYS.max)
    throw invalidFields([{ field: 'to', reason: `the range may span at most ${AFFILIATE_STATS_DAYS.max} days (it spans ${days})` }]);
  return { from: first, days };
}
