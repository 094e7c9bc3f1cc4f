import type { Clock } from '../../platform/clock';
import type { UserIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import type { AffiliateHistoryRepository } from '../repositories/affiliate-history.repository';
import {
  type AffiliateStatsRepository,
  type DailyClicksRecord,
  type DailyFiguresRecord,
  type LevelFiguresRecord,
  type SeriesOptions,
  type AffiliateTotalsRecord,
  type TotalsFilter,
} from '../repositories/affiliate-stats.repository';
import type { AffiliateMetricsRecord } from '../repositories/affiliate-metrics.repository';
import type { DownlineRecord, ReferredUserRecord, ReferredUsersRepository } from '../repositories/referred-users.repository';
import { affiliateNotFound } from './affiliate-fields';
import { requireProjectId, subject, type UserInput } from '../../rules/subject';
import { invalidFields, NotFoundError } from '../../rules/errors';
import type { HistoryEntry, HistoryType } from '../../rules/affiliate-history';
import { statsRange } from './stats-range';
import type { ReferredUserSort } from './vocabulary';

/** An affiliate's figures per referral level over a range (the affiliate stats API). */
/** Nodes of a referral tree answered at most (the counts per level are of all of them). */
const TREE_NODES = 200;

/** An affiliate's downline to four levels: affiliates per level (all), and the first nodes. */
export interface ReferralTreeRecord {
  perLevel: bigint[];
  nodes: DownlineRecord[];
  truncated: boolean;
}

export interface AffiliateFiguresRecord {
  /** Levels 1 to 4 in order (docs/claims.md#referral-levels). */
  levels: LevelFiguresRecord[];
  /** All time: every user it referred. */
  endUsers: bigint;
  /** Users whose first counted conversion attributed to it lies in the range. */
  newUsers: bigint;
}

const DAY_MS = 86_400_000;

export interface AffiliateStatsRecord {
  /** All time, as the affiliate list shows them. */
  totals: AffiliateMetricsRecord;
  /** Every UTC day of the range, oldest first. */
  series: DailyFiguresRecord[];
}

/**
 * What an affiliate's detail view reads beyond the affiliate itself (§2.9): its activity history,
 * the users it referred with their figures, and the figures its portal shows it. Each answers a user that is no affiliate of the
 * project with AFFILIATE_NOT_FOUND.
 */
export class AffiliateActivityService {
  constructor(
    private readonly history: AffiliateHistoryRepository,
    private readonly referred: ReferredUsersRepository,
    private readonly stats: AffiliateStatsRepository,
    private readonly clock: Clock,
  ) {}

  /** Newest first, paged. */
  async historyOf(projectIdInput: string, userInput: UserInput, page: Page): Promise<{ records: HistoryEntry[]; total: number }> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const affiliateId = await this.idOf(projectId, user);
    const { rows, total } = await this.history.page({ affiliateId, projectId, user }, this.clock.now(), page);
    return { records: rows.map((row) => ({ ...row, type: row.type as HistoryType })), total };
  }

  async referralsOf(
    projectIdInput: string,
    userInput: UserInput,
    sort: ReferredUserSort | undefined,
    page: Page,
  ): Promise<{ records: ReferredUserRecord[]; total: number }> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const affiliateId = await this.idOf(projectId, user);
    return this.referred.list(affiliateId, sort ?? 'referred_at', page);
  }

  /** Its downline to four referral levels (docs/claims.md#referral-levels): counts per level, and the first 200 affiliates with their figures. */
  async treeOf(projectIdInput: string, userInput: UserInput): Promise<ReferralTreeRecord> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const affiliateId = await this.idOf(projectId, user);
    const { perLevel, nodes } = await this.referred.downline(projectId, affiliateId, TREE_NODES);
    return { perLevel, nodes, truncated: perLevel.reduce((sum, count) => sum + count, 0n) > BigInt(nodes.length) };
  }

  /** Totals over all time and a daily series over [from, to] (see statsRange for the defaults and limits). */
  async statsOf(
    projectIdInput: string,
    userInput: UserInput,
    from: Date | undefined,
    to: Date | undefined,
    options: SeriesOptions = { bucket: 'day' },
  ): Promise<AffiliateStatsRecord> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const range = statsRange(from, to, this.clock.now());
    const affiliateId = await this.idOf(projectId, user);
    // One snapshot: a conversion applied between two reads would be in the totals and not in its day.
    return this.stats.inSnapshot(async (stats) => {
      const [totals, series] = await Promise.all([stats.totals(projectId, affiliateId), stats.daily(projectId, affiliateId, range, options)]);
      return { totals, series };
    });
  }

  /**
   * Its figures per level over the whole UTC days [from, to] (either side unbounded when unset; `from`
   * after `to` refused, naming `from`), of one conversion name when given, from the conversion facts
   * the metrics projection is made of (so, unbounded, the figures the affiliate list shows).
   */
  async figuresOf(
    projectIdInput: string,
    userInput: UserInput,
    from: Date | undefined,
    to: Date | undefined,
    conversionName: string | undefined,
  ): Promise<AffiliateFiguresRecord> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const first = from === undefined ? undefined : new Date(Math.floor(from.getTime() / DAY_MS) * DAY_MS);
    const until = to === undefined ? undefined : new Date((Math.floor(to.getTime() / DAY_MS) + 1) * DAY_MS);
    if (first !== undefined && until !== undefined && first >= until) throw invalidFields([{ field: 'from', reason: 'must not be after `to`' }]);
    const affiliateId = await this.idOf(projectId, user);
    const window = { from: first, until, conversionName };
    const [totals, levelOne, upper, newUsers] = await this.stats.inSnapshot((stats) =>
      Promise.all([
        stats.totals(projectId, affiliateId),
        stats.levelOne(projectId, affiliateId, window),
        stats.upperLevels(projectId, affiliateId, window),
        stats.newUsers(affiliateId, window),
      ]),
    );
    return {
      levels: [levelOne, ...upper],
      endUsers: totals.endUsers,
      newUsers,
    };
  }

  /**
   * Clicks per UTC day of [from, to] (statsRange's defaults and limits: the last 30 days), of all the
   * affiliate's codes or of one of them (`code`, any letter case; CODE_NOT_FOUND when it holds none).
   */
  async clicksOf(
    projectIdInput: string,
    userInput: UserInput,
    code: string | undefined,
    from: Date | undefined,
    to: Date | undefined,
  ): Promise<DailyClicksRecord[]> {
    const { projectId, user } = subject(projectIdInput, userInput);
    const range = statsRange(from, to, this.clock.now());
    const affiliateId = await this.idOf(projectId, user);
    const series = await this.stats.dailyClicks(projectId, affiliateId, code, range);
    if (series === undefined) throw new NotFoundError('CODE_NOT_FOUND', `the affiliate holds no code ${code}`);
    return series;
  }

  /** The project's affiliates kept by the filter, counted by status, and their all-time figures summed. */
  projectTotals(projectIdInput: string, filter: TotalsFilter): Promise<AffiliateTotalsRecord> {
    return this.stats.projectTotals(requireProjectId(projectIdInput), filter);
  }

  private async idOf(projectId: string, user: UserIdentifier): Promise<string> {
    const id = await this.history.affiliateId(projectId, user);
    if (id === undefined) throw affiliateNotFound();
    return id;
  }
}
