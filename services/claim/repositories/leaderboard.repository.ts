import { type Kysely, sql } from 'kysely';
import type { IdentifierType, UserIdentifier } from '../../rules/identifiers';
import type { Page } from '../../rules/pagination';
import type { ClaimDatabase } from '../database';
import type { LeaderboardUserType } from '../domain/vocabulary';

export interface LeaderboardEntryRecord {
  rank: number;
  user: UserIdentifier;
  totalAmount: bigint;
  totalAttributions: bigint;
}

/** One board: a project's currency and the kind of payout it ranks. */
export interface Board {
  projectId: string;
  currencyId: string;
  userType: LeaderboardUserType;
}

/** UTC days, both included ('YYYY-MM-DD'); a side left out is open. */
export interface DayRange {
  from?: string | undefined;
  to?: string | undefined;
}

/**
 * The running totals the ledger keeps (LedgerRepository.record): a page is a range of the rank
 * index (total descending, ties by identifier), and the board's size is one row beside it.
 */
/** A page's rows: the board's size beside each entry, or one row of the size alone when the page is empty. */
interface PageRow {
  entries: bigint;
  identifier: string | null;
  identifier_type: IdentifierType | null;
  total_amount: bigint | null;
  total_attributions: bigint | null;
}

/** The page's entries, ranked from its offset, and the board's size. */
function entryPage(rows: readonly PageRow[], page: Page): { records: LeaderboardEntryRecord[]; total: number } {
  const records: LeaderboardEntryRecord[] = [];
  for (const row of rows) {
    if (row.identifier === null || row.identifier_type === null || row.total_amount === null || row.total_attributions === null) continue;
    records.push({
      rank: page.offset + records.length + 1,
      user: { identifier: row.identifier, identifierType: row.identifier_type },
      totalAmount: row.total_amount,
      totalAttributions: row.total_attributions,
    });
  }
  return { records, total: Number(rows[0]?.entries ?? 0n) };
}

export class LeaderboardRepository {
  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  /** A page and the board's size, in one statement (one round trip per page asked). */
  async page(board: Board, page: Page): Promise<{ records: LeaderboardEntryRecord[]; total: number }> {
    // Raw: a LEFT JOIN LATERAL of the page onto the size (so an empty page still says the size) has no builder form.
    const { rows } = await sql<PageRow>`
      SELECT size.entries, t.identifier, t.identifier_type, t.total_amount, t.total_attributions
      FROM (
        SELECT coalesce((SELECT entries FROM leaderboard_sizes WHERE project_id = ${board.projectId} AND currency_id = ${board.currencyId} AND user_type = ${board.userType}), 0) AS entries
      ) size
      LEFT JOIN LATERAL (
        SELECT identifier, identifier_type, total_amount, total_attributions FROM leaderboard_totals
        WHERE project_id = ${board.projectId} AND currency_id = ${board.currencyId} AND user_type = ${board.userType}
        ORDER BY total_amount DESC, identifier, identifier_type
        LIMIT ${page.pageSize} OFFSET ${page.offset}
      ) t ON true`.execute(this.db);
    return entryPage(rows, page);
  }

  /** One user's entry with its rank (1 + the entries ahead of it), if the user is on the board. */
  async entryOf(board: Board, user: UserIdentifier): Promise<LeaderboardEntryRecord | undefined> {
    const row = await this.onBoard(board)
      .select(['total_amount', 'total_attributions'])
      .where('identifier', '=', user.identifier)
      .where('identifier_type', '=', user.identifierType)
      .executeTakeFirst();
    if (!row) return undefined;
    const ahead = await this.onBoard(board)
      .select((eb) => eb.fn.countAll<bigint>().as('n'))
      .where((eb) =>
        eb.or([
          eb('total_amount', '>', row.total_amount),
          eb.and([
            eb('total_amount', '=', row.total_amount),
            eb(sql`(identifier, identifier_type)`, '<', sql`(${user.identifier}, ${user.identifierType})`),
          ]),
        ]),
      )
      .executeTakeFirstOrThrow();
    return { rank: Number(ahead.n) + 1, user, totalAmount: row.total_amount, totalAttributions: row.total_attributions };
  }

  /**
   * A page of the board over a range of days and the board's size then, from the per-day rows
   * (0015: one per user and day, never the movements): totals summed per user, ranked as the
   * all-time board (total descending, ties by identifier). Users whose movements in the range were
   * all reversed stay on it with 0, as on the all-time board.
   */
  async rangePage(board: Board, range: DayRange, page: Page): Promise<{ records: LeaderboardEntryRecord[]; total: number }> {
    // Raw: a window count beside a grouped, ranked page, on a LEFT JOIN LATERAL so an empty page still says the size.
    const { rows } = await sql<PageRow>`
      WITH summed AS (
        SELECT identifier, identifier_type, sum(total_amount) AS total_amount, sum(total_attributions) AS total_attributions
        FROM leaderboard_days
        WHERE ${this.inRange(board, range)}
        GROUP BY identifier, identifier_type
      )
      SELECT size.entries, t.identifier, t.identifier_type, t.total_amount, t.total_attributions
      FROM (SELECT count(*) AS entries FROM summed) size
      LEFT JOIN LATERAL (
        SELECT identifier, identifier_type, total_amount, total_attributions FROM summed
        ORDER BY total_amount DESC, identifier, identifier_type
        LIMIT ${page.pageSize} OFFSET ${page.offset}
      ) t ON true`.execute(this.db);
    return entryPage(rows, page);
  }

  /** One user's entry over a range of days with its rank (1 + the users ahead of it then), if it earned in the range. */
  async rangeEntryOf(board: Board, range: DayRange, user: UserIdentifier): Promise<LeaderboardEntryRecord | undefined> {
    const { rows } = await sql<{ total_amount: bigint; total_attributions: bigint; ahead: bigint }>`
      WITH summed AS (
        SELECT identifier, identifier_type, sum(total_amount) AS total_amount, sum(total_attributions) AS total_attributions
        FROM leaderboard_days
        WHERE ${this.inRange(board, range)}
        GROUP BY identifier, identifier_type
      ),
      mine AS (SELECT total_amount, total_attributions FROM summed WHERE identifier = ${user.identifier} AND identifier_type = ${user.identifierType})
      SELECT mine.total_amount, mine.total_attributions,
             (SELECT count(*) FROM summed s
              WHERE s.total_amount > mine.total_amount
                 OR s.total_amount = mine.total_amount AND (s.identifier, s.identifier_type) < (${user.identifier}, ${user.identifierType})) AS ahead
      FROM mine`.execute(this.db);
    const row = rows[0];
    if (!row) return undefined;
    return { rank: Number(row.ahead) + 1, user, totalAmount: row.total_amount, totalAttributions: row.total_attributions };
  }

  private inRange(board: Board, range: DayRange) {
    const from = range.from === undefined ? sql`` : sql` AND day >= ${range.from}::date`;
    const to = range.to === undefined ? sql`` : sql` AND day <= ${range.to}::date`;
    return sql`project_id = ${board.projectId} AND currency_id = ${board.currencyId} AND user_type = ${board.userType}${from}${to}`;
  }

  private onBoard(board: Board) {
    return this.db
      .selectFrom('leaderboard_totals')
      .where('project_id', '=', board.projectId)
      .where('currency_id', '=', board.currencyId)
      .where('user_type', '=', board.userType);
  }
}
