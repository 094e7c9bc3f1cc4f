import type { Clock } from '../../platform/clock';
import { InvalidArgumentError, invalidFields, NotFoundError } from '../../rules/errors';
import { normalizeIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import { SnapshotReads } from '../../platform/shared-reads';
import type { CurrencyRecord, CurrencyRepository } from '../repositories/currency.repository';
import type { Board, DayRange, LeaderboardEntryRecord, LeaderboardRepository } from '../repositories/leaderboard.repository';
import type {
  ConversionRecord,
  MovementRecord,
  MovementRepository,
  PayoutSumRecord,
  ReferredUserRecord,
  TimeRange,
} from '../repositories/movement.repository';
import { requireProjectId } from './project';
import { checkConversionName } from './conversion-name';
import type { ConversionStatus, CurrencyFamily, LeaderboardUserType, MovementStatus } from './vocabulary';

/** The most referred users one affiliate's payouts by referrer answer (by identifier). */
const MAX_REFERRED_USERS = 10_000;

/** A window ends after it starts: `from` before `to` when both are set. */
function checkRange(range: TimeRange): void {
  if (range.from !== undefined && range.to !== undefined && range.from.getTime() >= range.to.getTime()) {
    throw invalidFields([{ field: 'to', reason: 'must be after from' }]);
  }
}

export interface LeaderboardQuery {
  currencyAddress: string | undefined;
  chainId: string | undefined;
  userType: LeaderboardUserType;
  user: { identifier: string; identifierType: string } | undefined;
  /** UTC days 'YYYY-MM-DD', both included: only what was earned then (the per-day boards); left out, all time. */
  from?: string | undefined;
  to?: string | undefined;
  /** The board of the project's point currency (the currency is then not named by address). */
  points?: boolean;
}

export interface ConversionListFilter {
  status: ConversionStatus | undefined;
  name: string | undefined;
  user: { identifier: string; identifierType: string } | undefined;
}

export interface LeaderboardPage {
  currency: CurrencyRecord;
  records: LeaderboardEntryRecord[];
  total: number;
  calculatedAt: Date;
  /** Until when this answer may be given again without reading (calculatedAt + CLAIM_LEADERBOARD_CACHE_MS; calculatedAt for a user's own entry). */
  freshUntil: Date;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** The longest range a board is summed over (its per-day rows: a user's row per day at most). */
const LEADERBOARD_MAX_RANGE_DAYS = 3_660;

/** A query's days, checked: real calendar days, `from` not after `to`, at most LEADERBOARD_MAX_RANGE_DAYS apart; undefined when neither is given. */
function dayRange(query: LeaderboardQuery): DayRange | undefined {
  if (query.from === undefined && query.to === undefined) return undefined;
  const time = (field: 'from' | 'to'): number | undefined => {
    const value = query[field];
    if (value === undefined) return undefined;
    const at = DAY.test(value) ? Date.parse(`${value}T00:00:00.000Z`) : NaN;
    if (Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== value) {
      throw invalidFields([{ field, reason: 'must be a calendar day written YYYY-MM-DD' }]);
    }
    return at;
  };
  const from = time('from');
  const to = time('to');
  if (from !== undefined && to !== undefined) {
    if (from > to) throw invalidFields([{ field: 'from', reason: 'must not be after `to`' }]);
    if ((to - from) / 86_400_000 + 1 > LEADERBOARD_MAX_RANGE_DAYS) {
      throw invalidFields([{ field: 'to', reason: `must be at most ${LEADERBOARD_MAX_RANGE_DAYS} days after \`from\`` }]);
    }
  }
  return { from: query.from, to: query.to };
}
/**
 * How long a currency found for a leaderboard query is used without asking again. Currencies never
 * change or go; a currency added at the same address on another chain makes the address ambiguous
 * at most this much later.
 */
const CURRENCY_MEMO_MS = 10_000;
const CURRENCY_MEMO_SIZE = 10_000;

type BoardPage = { records: LeaderboardEntryRecord[]; total: number; calculatedAt: Date; freshUntil: Date };

/** What the ledger says: a conversion and its movements, a user's movements, the payout leaderboards. */
export class LedgerService {
  private readonly currencyMemo = new Map<string, { currency: CurrencyRecord; until: number }>();
  /** Leaderboard pages being read or read less than `pageCacheMs` ago. */
  private readonly pages: SnapshotReads<BoardPage>;

  /**
   * `pageCacheMs` (CLAIM_LEADERBOARD_CACHE_MS): how long a page read is answered again, i.e. how stale
   * a leaderboard may be; 0 keeps nothing once it is given out.
   */
  constructor(
    private readonly movements: MovementRepository,
    private readonly leaderboards: LeaderboardRepository,
    private readonly currencies: CurrencyRepository,
    private readonly clock: Clock,
    private readonly pageCacheMs = 0,
  ) {
    this.pages = new SnapshotReads(() => clock.now().getTime());
  }

  async conversion(projectId: string, id: string): Promise<ConversionRecord> {
    const record = await this.movements.conversion(requireProjectId(projectId), id);
    if (!record) throw new NotFoundError('CONVERSION_NOT_FOUND', 'no conversion with this id in this project');
    return record;
  }

  /**
   * A page of the project's conversions, newest received first, narrowed by status, name (trimmed,
   * matched exactly, as terms match it) and converting user (in its canonical form).
   */
  conversions(projectId: string, filter: ConversionListFilter, page: Page): Promise<{ records: ConversionRecord[]; total: number }> {
    requireProjectId(projectId);
    let name: string | undefined;
    if (filter.name !== undefined) {
      const checked = checkConversionName(filter.name, 'name');
      if (checked.violations.length > 0) throw invalidFields(checked.violations);
      name = checked.value;
    }
    const user = filter.user && normalizeIdentifier(filter.user.identifier, filter.user.identifierType, 'user');
    return this.movements.list(projectId, { status: filter.status, name, user }, page);
  }

  /** A page of the user's movements, newest first; with `status`, only those in it; with `range`, only those written within it. */
  async movementsOf(
    projectId: string,
    user: { identifier: string; identifierType: string },
    status: MovementStatus | undefined,
    page: Page,
    range: TimeRange = {},
    family?: CurrencyFamily,
  ): Promise<{ records: MovementRecord[]; total: number }> {
    requireProjectId(projectId);
    checkRange(range);
    return this.movements.ofUser(projectId, normalizeIdentifier(user.identifier, user.identifierType, 'user'), status, page, range, family);
  }

  /** What the user earned per conversion name, side and currency over the movements written within `range` (a page of them). */
  async payoutSums(
    projectId: string,
    user: { identifier: string; identifierType: string },
    range: TimeRange,
    page: Page,
    family?: CurrencyFamily,
  ): Promise<{ records: PayoutSumRecord[]; total: number }> {
    requireProjectId(projectId);
    checkRange(range);
    return this.movements.sumsOfUser(projectId, normalizeIdentifier(user.identifier, user.identifierType, 'user'), range, page, family);
  }

  /** Per user the affiliate referred (its paid conversions say so): volume and the affiliate's earnings within `range`. */
  async referredUsers(projectId: string, affiliate: { identifier: string; identifierType: string }, range: TimeRange): Promise<ReferredUserRecord[]> {
    requireProjectId(projectId);
    checkRange(range);
    return this.movements.referredUsers(
      projectId,
      normalizeIdentifier(affiliate.identifier, affiliate.identifierType, 'affiliate'),
      range,
      MAX_REFERRED_USERS,
    );
  }

  /**
   * A page of the board of one currency (named by its address, and its chain where the project
   * has that address on several), ranked by total descending, ties by identifier. With `user`,
   * only that user's entry, with its rank. With `from`/`to`, the board of what was earned on those
   * UTC days (the per-day rows, docs/claims.md#leaderboards-over-a-date-range).
   */
  async leaderboard(projectId: string, query: LeaderboardQuery, page: Page): Promise<LeaderboardPage> {
    requireProjectId(projectId);
    const user = query.user && normalizeIdentifier(query.user.identifier, query.user.identifierType, 'user');
    const range = dayRange(query);
    const currency = await this.currency(projectId, query);
    const board = { projectId, currencyId: currency.id, userType: query.userType };
    if (user) {
      const calculatedAt = this.clock.now();
      const entry = range ? await this.leaderboards.rangeEntryOf(board, range, user) : await this.leaderboards.entryOf(board, user);
      return { currency, records: entry ? [entry] : [], total: entry ? 1 : 0, calculatedAt, freshUntil: calculatedAt };
    }
    return { currency, ...(await this.sharedPage(board, range, page)) };
  }

  /**
   * Requests for the same page of the same board while its query runs share that query's answer
   * (a popular page under load is read once per round trip, not once per reader), and so do the
   * requests of the next `pageCacheMs` after it: the page says when it was read (calculatedAt).
   * A failed read is not kept.
   */
  private sharedPage(board: Board, range: DayRange | undefined, page: Page): Promise<BoardPage> {
    const days = range ? `${range.from ?? ''}|${range.to ?? ''}` : 'all';
    const key = `${board.projectId}|${board.currencyId}|${board.userType}|${days}|${page.offset}|${page.pageSize}`;
    return this.pages.read(key, async () => {
      const calculatedAt = this.clock.now();
      const freshUntil = new Date(calculatedAt.getTime() + this.pageCacheMs);
      const read = range ? await this.leaderboards.rangePage(board, range, page) : await this.leaderboards.page(board, page);
      return { value: { ...read, calculatedAt, freshUntil }, keepUntil: freshUntil.getTime() };
    });
  }

  private async currency(projectId: string, query: LeaderboardQuery): Promise<CurrencyRecord> {
    if (query.points) return this.pointCurrency(projectId);
    if (query.currencyAddress !== undefined && !ADDRESS.test(query.currencyAddress)) {
      throw new InvalidArgumentError('VALIDATION_FAILED', 'currency_address must be 0x followed by 40 hex digits', [
        { field: 'currency_address', reason: 'must be 0x followed by 40 hex digits' },
      ]);
    }
    const chainId = query.chainId === undefined ? undefined : /^[1-9][0-9]{0,18}$/.test(query.chainId) ? BigInt(query.chainId) : null;
    if (chainId === null) throw invalidFields([{ field: 'chain_id', reason: 'must be a positive chain id' }]);
    const key = `${projectId}|${query.currencyAddress?.toLowerCase() ?? ''}|${chainId ?? ''}`;
    const memo = this.currencyMemo.get(key);
    // Real time: how long a lookup is reused is about load, not business time.
    if (memo && memo.until > performance.now()) return memo.currency;
    const matches = await this.currencies.findByAddress(projectId, query.currencyAddress?.toLowerCase(), chainId);
    if (matches.length === 1) {
      if (this.currencyMemo.size >= CURRENCY_MEMO_SIZE) this.currencyMemo.clear();
      this.currencyMemo.set(key, { currency: matches[0]!, until: performance.now() + CURRENCY_MEMO_MS });
    }
    if (matches.length === 0) throw new NotFoundError('CURRENCY_NOT_FOUND', 'the project has no currency at this address (and chain)');
    if (matches.length > 1) {
      const [field, what] =
        query.currencyAddress === undefined
          ? ['currency_address', 'the project pays in several currencies: name one by its address']
          : ['chain_id', 'the project has this address on several chains: name the chain'];
      throw new InvalidArgumentError('CURRENCY_AMBIGUOUS', what, [{ field, reason: 'is required here' }]);
    }
    return matches[0]!;
  }

  /** The project's point currency (docs/claims.md#points), remembered as an address's currency is. */
  private async pointCurrency(projectId: string): Promise<CurrencyRecord> {
    const key = `${projectId}|point`;
    const memo = this.currencyMemo.get(key);
    if (memo && memo.until > performance.now()) return memo.currency;
    const currency = await this.currencies.pointCurrency(projectId);
    if (!currency) throw new NotFoundError('POINT_CURRENCY_NOT_FOUND', 'the project has no point currency');
    if (this.currencyMemo.size >= CURRENCY_MEMO_SIZE) this.currencyMemo.clear();
    this.currencyMemo.set(key, { currency, until: performance.now() + CURRENCY_MEMO_MS });
    return currency;
  }
}
