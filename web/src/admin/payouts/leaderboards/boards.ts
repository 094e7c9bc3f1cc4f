/**
 * The leaderboards the API has, and what each takes, for the Leaderboards page's picker. One entry
 * per board: a board added to the API (points, when the project pays them) is one more entry here and
 * one more component in LeaderboardPage's switch.
 */
export type BoardKind = 'payouts' | 'volume' | 'revenue' | 'referred-users' | 'referred-volume';
export type UserType = 'affiliate' | 'end_user';

export interface BoardChoice {
  kind: BoardKind;
  label: string;
  /** What it ranks, in a sentence, under the picker. */
  help: string;
  /** Ranked in one currency (the currency picker). */
  currency: boolean;
  /** Ranks affiliates or end users (the Ranked picker). */
  userTypes: boolean;
  /** Takes a range of UTC days (from/to). */
  dates: boolean;
}

export const BOARDS: readonly BoardChoice[] = [
  {
    kind: 'payouts',
    label: 'Payouts',
    help: 'What each user earned in one currency: affiliate payouts or end-user payouts; agency payouts never count. Ties are ranked by identifier.',
    currency: true,
    userTypes: true,
    dates: true,
  },
  {
    kind: 'volume',
    label: 'Volume',
    help: 'USD volume, all time: affiliates by what the users they referred brought, end users by their own conversions.',
    currency: false,
    userTypes: true,
    dates: false,
  },
  {
    kind: 'revenue',
    label: 'Revenue',
    help: 'USD revenue, all time, with the conversions behind it: affiliates by what the users they referred brought, end users by their own.',
    currency: false,
    userTypes: true,
    dates: false,
  },
  {
    kind: 'referred-users',
    label: 'Referred users',
    help: 'Affiliates by the users they referred, converted or not, all time.',
    currency: false,
    userTypes: false,
    dates: false,
  },
  {
    kind: 'referred-volume',
    label: 'Referred volume',
    help: 'The USD volume of the users each named user referred, all time: 0 for one that is no affiliate.',
    currency: false,
    userTypes: false,
    dates: false,
  },
];

export function boardChoice(kind: string | null): BoardChoice {
  return BOARDS.find((board) => board.kind === kind) ?? BOARDS[0]!;
}

export const userTypeOf = (value: string | null): UserType => (value === 'end_user' ? 'end_user' : 'affiliate');

/** A UTC day as the API takes it (YYYY-MM-DD, a real date), or undefined. */
export function utcDay(value: string | null): string | undefined {
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value) ? value : undefined;
}

/** What is wrong with a typed range, per field, in words; empty when it can be asked (either end may be left empty). */
export function rangeProblems(from: string, to: string): { from?: string; to?: string } {
  const problems: { from?: string; to?: string } = {};
  if (from !== '' && !utcDay(from)) problems.from = 'Enter a day as YYYY-MM-DD, or leave it empty to start at the first payout.';
  if (to !== '' && !utcDay(to)) problems.to = 'Enter a day as YYYY-MM-DD, or leave it empty to end today.';
  if (!problems.from && !problems.to && from !== '' && to !== '' && from > to) problems.to = 'The last day comes before the first: swap them.';
  return problems;
}

/** The users typed for the referred-volume board: separated by commas, spaces or lines, each once, at most the API's 100. */
export function typedUsers(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter((user) => user !== ''))];
}
export const MAX_TYPED_USERS = 100;
