import { utcDay } from '../payouts/leaderboards/boards';

/** The period the home shows: the last 7, 30 or 90 UTC days up to today, or a range of UTC days typed by the admin. */
export interface Period {
  from: string;
  to: string;
  /** 7, 30 or 90 for a preset; null for a typed range. */
  days: number | null;
}

export const PRESETS = [7, 30, 90] as const;
export const DEFAULT_DAYS = 30;
/** The API's longest period (GET /api/v1/projects/{projectId}/overview). */
export const MAX_DAYS = 366;
const DAY_MS = 86_400_000;

const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

/** The last `days` UTC days, today included. */
export function lastDays(days: number, now: Date): Period {
  return { from: dayOf(now.getTime() - (days - 1) * DAY_MS), to: dayOf(now.getTime()), days };
}

/** The period the URL names (`?days=7`, or `?from=…&to=…`); the last 30 days when it names none that can be read. */
export function periodFromUrl(params: URLSearchParams, now: Date): Period {
  const days = Number(params.get('days'));
  if (PRESETS.some((preset) => preset === days)) return lastDays(days, now);
  const from = utcDay(params.get('from'));
  const to = utcDay(params.get('to'));
  if (from && to && Object.keys(rangeProblems(from, to)).length === 0) return { from, to, days: null };
  return lastDays(DEFAULT_DAYS, now);
}

/** What is wrong with a typed range, per field, in words; empty when the home can show it. */
export function rangeProblems(from: string, to: string): { from?: string; to?: string } {
  const problems: { from?: string; to?: string } = {};
  if (!utcDay(from)) problems.from = 'Enter the first day as YYYY-MM-DD.';
  if (!utcDay(to)) problems.to = 'Enter the last day as YYYY-MM-DD.';
  if (problems.from || problems.to) return problems;
  const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
  if (span < 1) problems.to = 'The last day comes before the first: swap them.';
  else if (span > MAX_DAYS) problems.to = `A period is at most ${MAX_DAYS} days: pick a later first day or an earlier last one.`;
  return problems;
}

/** "the last 30 days" / "2026-01-01 to 2026-01-31", for headings and empty states. */
export function describePeriod(period: Period): string {
  return period.days === null ? `${period.from} to ${period.to}` : `the last ${period.days} days`;
}
