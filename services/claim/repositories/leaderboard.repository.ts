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

/**
 * The running totals the ledger keeps (LedgerRepository.record): a page is a range of the rank
 * index (total descending, ties by identifier), and the board's size is one row beside it.
 */
export class LeaderboardRepository {
  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  /** A page and the board's size, in one statement (one round trip per page asked). */
  async page(board: Board, page: Page): Promise<{ records: LeaderboardEntryRecord[]; total: number }> {
    // Raw: a LEFT JOIN LATERAL of the page onto the size (so an empty page still says the size) has no builder form.
    const { rows } = await sql<{
      entries: bigint;
      identifier: string | null;
      identifier_type: IdentifierType | null;
      total_amount: bigint | null;
      total_attributions: bigint | null;
    }>`
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

  private onBoard(board: Board) {
    return this.db
      .selectFrom('leaderboard_totals')
      .where('project_id', '=', board.projectId)
      .where('currency_id', '=', board.currencyId)
      .where('user_type', '=', board.userType);
  }
}
