import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { UserIdentifier } from '../../common/identifiers';
import type { Page } from '../../common/pagination';
import type { TaxDatabase } from '../database';
import type { TaxRecord } from '../domain/tax-record';
import type { RecordStatus } from '../domain/vocabulary';
import { currentRecordOf, isCurrent, RECORD_COLUMNS, toTaxRecord } from './tax-record-row';

/** Reads of tax records; their changes are in tax-transition.repository.ts. */
export class TaxRecordRepository {
  constructor(private readonly db: Kysely<TaxDatabase>) {}

  async findCurrent(projectId: string, user: UserIdentifier): Promise<TaxRecord | undefined> {
    const row = await this.db.selectFrom('tax_records').select(RECORD_COLUMNS).where(currentRecordOf(projectId, user)).executeTakeFirst();
    return row && toTaxRecord(row);
  }

  /** The current records of many users in one round trip (the affiliate list, the claim gate). */
  async findCurrentForUsers(projectId: string, users: UserIdentifier[]): Promise<TaxRecord[]> {
    if (users.length === 0) return [];
    const rows = await this.db
      .selectFrom('tax_records')
      .select(RECORD_COLUMNS)
      .where('project_id', '=', projectId)
      .where(isCurrent)
      // Raw: the builder cannot say a two-array unnest, which pairs types and identifiers in one parameter each.
      .where(
        sql<boolean>`(identifier_type, identifier) IN (SELECT * FROM unnest(${users.map((user) => user.identifierType)}::text[], ${users.map((user) => user.identifier)}::text[]))`,
      )
      .execute();
    return rows.map(toTaxRecord);
  }

  /**
   * Current records of a project, oldest submission first (the review queue), optionally of one
   * status as of `now`: an approved W-8 past expires_at counts as expired before the sweep.
   */
  async list(
    projectId: string,
    { status, user }: { status?: RecordStatus | undefined; user?: UserIdentifier | undefined },
    page: Page,
    now: Date,
  ): Promise<{ records: TaxRecord[]; total: number }> {
    let matching = this.db
      .selectFrom('tax_records')
      .where('project_id', '=', projectId)
      .where(isCurrent)
      .where((eb) => statusAt(eb, status, now));
    if (user) matching = matching.where('identifier_type', '=', user.identifierType).where('identifier', '=', user.identifier);
    const [rows, count] = await Promise.all([
      matching.select(RECORD_COLUMNS).orderBy('submitted_at').orderBy('id').limit(page.pageSize).offset(page.offset).execute(),
      matching.select((eb) => eb.fn.countAll<bigint>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { records: rows.map(toTaxRecord), total: Number(count.total) };
  }
}

function statusAt(eb: ExpressionBuilder<TaxDatabase, 'tax_records'>, status: RecordStatus | undefined, now: Date) {
  switch (status) {
    case undefined:
      return eb.lit(true);
    case 'approved':
      return eb.and([eb('status', '=', 'approved'), eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])]);
    case 'expired':
      return eb.or([eb('status', '=', 'expired'), eb.and([eb('status', '=', 'approved'), eb('expires_at', '<=', now)])]);
    default:
      return eb('status', '=', status);
  }
}
