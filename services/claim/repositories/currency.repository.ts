import type { Kysely, Selectable } from 'kysely';
import { isUniqueViolation } from '../../platform/db/errors';
import type { Page } from '../../rules/pagination';
import type { ClaimDatabase, CurrencyTable } from '../database';
import type { CurrencyType } from '../domain/vocabulary';
import { type PagedRecords, readPage } from '../../platform/db/paged-list';

export interface CurrencyRecord {
  id: string;
  projectId: string;
  /** Null for a point currency (no chain, no address), and only then. */
  chainId: bigint | null;
  address: string | null;
  name: string;
  decimals: number;
  type: CurrencyType;
  createdAt: Date;
}

/** A currency to add: its fields but the id and creation time the repository gives it (`now`). */
export type NewCurrency = Omit<CurrencyRecord, 'id' | 'createdAt'> & { now: Date };

/** Thrown when the project already has a currency at this (chain, address). */
export class CurrencyTaken extends Error {}
/** Thrown when the project already has its point currency (one per project, migration 0019). */
export class PointCurrencyTaken extends Error {}

const COLUMNS = ['id', 'project_id', 'chain_id', 'address', 'name', 'decimals', 'type', 'created_at'] as const satisfies ReadonlyArray<
  keyof CurrencyTable
>;

export class CurrencyRepository {
  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  async insert(currency: NewCurrency): Promise<CurrencyRecord> {
    try {
      const row = await this.db
        .insertInto('currencies')
        .values({
          project_id: currency.projectId,
          chain_id: currency.chainId,
          address: currency.address,
          name: currency.name,
          decimals: currency.decimals,
          type: currency.type,
          created_at: currency.now,
        })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
      return toCurrencyRecord(row);
    } catch (error) {
      if (isUniqueViolation(error, 'currencies_chain_address_key')) throw new CurrencyTaken();
      if (isUniqueViolation(error, 'currencies_point_key')) throw new PointCurrencyTaken();
      throw error;
    }
  }

  async list(projectId: string, page: Page): Promise<PagedRecords<CurrencyRecord>> {
    const { records, total } = await readPage(
      this.db.selectFrom('currencies').where('project_id', '=', projectId),
      (matching) => matching.select(COLUMNS).orderBy('created_at').orderBy('id'),
      page,
    );
    return { records: records.map(toCurrencyRecord), total };
  }

  async exists(projectId: string, id: string): Promise<boolean> {
    const row = await this.db.selectFrom('currencies').select('id').where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
    return row !== undefined;
  }

  /** The project's currencies of these ids (those that exist). */
  async byIds(projectId: string, ids: readonly string[]): Promise<CurrencyRecord[]> {
    if (ids.length === 0) return [];
    return (
      await this.db
        .selectFrom('currencies')
        .select(COLUMNS)
        .where('project_id', '=', projectId)
        .where('id', 'in', [...new Set(ids)])
        .execute()
    ).map(toCurrencyRecord);
  }

  /** The project's point currency, if it has one (at most one: migration 0019). */
  async pointCurrency(projectId: string): Promise<CurrencyRecord | undefined> {
    const row = await this.db
      .selectFrom('currencies')
      .select(COLUMNS)
      .where('project_id', '=', projectId)
      .where('type', '=', 'point')
      .executeTakeFirst();
    return row && toCurrencyRecord(row);
  }

  /** The project's chain currencies at this address (one per chain), or only the one on `chainId`; points have no address and are never among them. */
  async findByAddress(projectId: string, address: string | undefined, chainId: bigint | undefined): Promise<CurrencyRecord[]> {
    let query = this.db.selectFrom('currencies').select(COLUMNS).where('project_id', '=', projectId).where('type', '<>', 'point');
    if (address !== undefined) query = query.where('address', '=', address);
    if (chainId !== undefined) query = query.where('chain_id', '=', chainId);
    return (await query.orderBy('created_at').limit(2).execute()).map(toCurrencyRecord);
  }
}

export function toCurrencyRecord(row: Pick<Selectable<CurrencyTable>, (typeof COLUMNS)[number]>): CurrencyRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    chainId: row.chain_id,
    address: row.address,
    name: row.name,
    decimals: row.decimals,
    type: row.type,
    createdAt: row.created_at,
  };
}
