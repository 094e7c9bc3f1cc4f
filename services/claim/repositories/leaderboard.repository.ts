import { type Kysely, sql } from 'kysely';
import type { UserIdentifier } from '../../common/identifiers';
import type { Page } from '../../common/pagination';
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
 * index (total descending, ties by identifier), and the board's size is one row.
 */
export class LeaderboardRepository {
  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  async page(board: Board, page: Page): Promise<{ records: LeaderboardEntryRecord[]; total: number }> {
    const [rows, size] = await Promise.all([
      this.onBoard(board)
        .select(['identifier', 'identifier_type', 'total_amount', 'total_attributions'])
        .orderBy('total_amount', 'desc')
        .orderBy('identifier')
        .orderBy('identifier_type')
        .limit(page.pageSize)
        .offset(page.offset)
        .execute(),
      this.db
        .selectFrom('leaderboard_sizes')
        .select('entries')
        .where('project_id', '=', board.projectId)
        .where('currency_id', '=', board.currencyId)
        .where('user_type', '=', board.userType)
        .executeTakeFirst(),
    ]);
    return {
      records: rows.map((row, index) => ({
        rank: page.offset + index + 1,
        user: { identifier: row.identifier, identifierType: row.identifier_type },
        totalAmount: row.total_amount,
        totalAttributions: row.total_attributions,
      })),
      total: Number(size?.entries ?? 0n),
    };
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
