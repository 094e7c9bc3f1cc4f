import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { isForeignKeyViolation } from '../../platform/db/errors';
import type { Page } from '../../rules/pagination';
import type { ClaimDatabase, PayoutTermsTable, PayoutTermTierTable } from '../database';
import type { PayoutCaps } from '../domain/caps';
import { UPLINE_LEVELS, type UplineRewards } from '../domain/payouts';
import type { Reward } from '../domain/reward';

export interface TierRewardRecord {
  audienceId: string;
  affiliate: Reward;
  /** The tier's rewards of referral levels 2..4 (docs/claims.md#referral-levels); a level absent is not paid. */
  upline: UplineRewards;
}

export interface PayoutTermsRecord {
  conversionName: string;
  currencyId: string;
  endUser: Reward | null;
  affiliate: Reward | null;
  /** The rewards of referral levels 2..4 when the affiliate's active tier is none of `tiers`; a level absent is not paid. */
  upline: UplineRewards;
  tiers: TierRewardRecord[];
  /** Allowlists: only members of the audience earn the side's reward (null: everyone may). */
  endUserAllowlistAudienceId: string | null;
  affiliateAllowlistAudienceId: string | null;
  /** Days a movement is held (pending) before it is available; 0: at once. */
  holdDays: number;
  /** Whether movements wait (pending) for an admin's approval. */
  requireApproval: boolean;
  /** What the terms pay at most (each null while off). */
  caps: PayoutCaps;
  createdAt: Date;
  updatedAt: Date;
}

/** The terms to store: a record's fields but its times, which `now` sets. */
export type PayoutTermsChange = Omit<PayoutTermsRecord, 'createdAt' | 'updatedAt'> & { projectId: string; now: Date };

/** Thrown when the terms name a currency the project does not have. */
export class UnknownCurrency extends Error {}

const TERM_COLUMNS = [
  'project_id',
  'conversion_name',
  'currency_id',
  'end_user_fixed',
  'end_user_bps',
  'affiliate_fixed',
  'affiliate_bps',
  'end_user_allowlist_audience_id',
  'affiliate_allowlist_audience_id',
  'hold_days',
  'require_approval',
  'cap_per_conversion',
  'cap_per_end_user',
  'cap_window_amount',
  'cap_window_days',
  'affiliate2_fixed',
  'affiliate2_bps',
  'affiliate3_fixed',
  'affiliate3_bps',
  'affiliate4_fixed',
  'affiliate4_bps',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof PayoutTermsTable>;

type TermRow = Pick<Selectable<PayoutTermsTable>, (typeof TERM_COLUMNS)[number]>;
type TierRow = Selectable<PayoutTermTierTable>;

export class PayoutTermsRepository {
  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  /** Creates the terms of a conversion name, or replaces them whole (tiers too), in one transaction. */
  async put(change: PayoutTermsChange): Promise<{ record: PayoutTermsRecord; created: boolean }> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const columns = {
          currency_id: change.currencyId,
          ...rewardColumns('end_user', change.endUser),
          ...rewardColumns('affiliate', change.affiliate),
          ...uplineColumns(change.upline),
          end_user_allowlist_audience_id: change.endUserAllowlistAudienceId,
          affiliate_allowlist_audience_id: change.affiliateAllowlistAudienceId,
          hold_days: change.holdDays,
          require_approval: change.requireApproval,
          cap_per_conversion: change.caps.perConversion,
          cap_per_end_user: change.caps.perEndUser,
          cap_window_amount: change.caps.perAffiliateWindow?.amount ?? null,
          cap_window_days: change.caps.perAffiliateWindow?.days ?? null,
          updated_at: change.now,
        };
        const row = await trx
          .insertInto('payout_terms')
          .values({ project_id: change.projectId, conversion_name: change.conversionName, ...columns, created_at: change.now })
          .onConflict((conflict) => conflict.columns(['project_id', 'conversion_name']).doUpdateSet(columns))
          // A row that was just inserted has no deleting transaction yet (xmax = 0); an updated one has.
          .returning([...TERM_COLUMNS, sql<boolean>`xmax = 0`.as('created')])
          .executeTakeFirstOrThrow();
        await trx
          .deleteFrom('payout_term_tiers')
          .where('project_id', '=', change.projectId)
          .where('conversion_name', '=', change.conversionName)
          .execute();
        if (change.tiers.length > 0) {
          await trx
            .insertInto('payout_term_tiers')
            .values(
              change.tiers.map((tier, position) => ({
                project_id: change.projectId,
                conversion_name: change.conversionName,
                audience_id: tier.audienceId,
                position,
                ...rewardColumns('affiliate', tier.affiliate),
                ...uplineColumns(tier.upline),
              })),
            )
            .execute();
        }
        return { record: toRecord(row, await tiersOf(trx, change.projectId, [change.conversionName])), created: row.created };
      });
    } catch (error) {
      if (isForeignKeyViolation(error)) throw new UnknownCurrency();
      throw error;
    }
  }

  async get(projectId: string, conversionName: string): Promise<PayoutTermsRecord | undefined> {
    return (await this.forNames(projectId, [conversionName])).get(conversionName);
  }

  /** The terms of each of these conversion names that has terms (what one batch of conversions is paid under). */
  async forNames(projectId: string, names: readonly string[]): Promise<Map<string, PayoutTermsRecord>> {
    if (names.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('payout_terms')
      .select(TERM_COLUMNS)
      .where('project_id', '=', projectId)
      .where('conversion_name', 'in', [...new Set(names)])
      .execute();
    const tiers = await tiersOf(
      this.db,
      projectId,
      rows.map((row) => row.conversion_name),
    );
    return new Map(rows.map((row) => [row.conversion_name, toRecord(row, tiers)]));
  }

  async list(projectId: string, page: Page): Promise<{ records: PayoutTermsRecord[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.db
        .selectFrom('payout_terms')
        .select(TERM_COLUMNS)
        .where('project_id', '=', projectId)
        .orderBy('conversion_name')
        .limit(page.pageSize)
        .offset(page.offset)
        .execute(),
      this.db
        .selectFrom('payout_terms')
        .select((eb) => eb.fn.countAll<bigint>().as('total'))
        .where('project_id', '=', projectId)
        .executeTakeFirstOrThrow(),
    ]);
    const tiers = await tiersOf(
      this.db,
      projectId,
      rows.map((row) => row.conversion_name),
    );
    return { records: rows.map((row) => toRecord(row, tiers)), total: Number(count.total) };
  }

  /** Tiers go with the terms (ON DELETE CASCADE). */
  async delete(projectId: string, conversionName: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('payout_terms')
      .where('project_id', '=', projectId)
      .where('conversion_name', '=', conversionName)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}

function rewardColumns<P extends 'end_user' | 'affiliate' | `affiliate${2 | 3 | 4}`>(prefix: P, reward: Reward | null) {
  return {
    [`${prefix}_fixed`]: reward && 'fixed' in reward ? reward.fixed : null,
    [`${prefix}_bps`]: reward && 'bps' in reward ? reward.bps : null,
  } as Record<`${P}_fixed`, bigint | null> & Record<`${P}_bps`, number | null>;
}

/** The columns of referral levels 2..4 (both null where a level is not paid). */
function uplineColumns(upline: UplineRewards) {
  return {
    ...rewardColumns('affiliate2', upline[2] ?? null),
    ...rewardColumns('affiliate3', upline[3] ?? null),
    ...rewardColumns('affiliate4', upline[4] ?? null),
  };
}

type UplineColumns = Pick<TermRow, `affiliate${2 | 3 | 4}_${'fixed' | 'bps'}`>;

/** The rewards of levels 2..4 a row holds. */
function toUpline(row: UplineColumns): UplineRewards {
  const upline: UplineRewards = {};
  for (const level of UPLINE_LEVELS) {
    const reward = toReward(row[`affiliate${level}_fixed`], row[`affiliate${level}_bps`]);
    if (reward) upline[level] = reward;
  }
  return upline;
}

function toReward(fixed: bigint | null, bps: number | null): Reward | null {
  if (fixed !== null) return { fixed };
  if (bps !== null) return { bps };
  return null;
}

async function tiersOf(db: Kysely<ClaimDatabase> | Transaction<ClaimDatabase>, projectId: string, names: string[]): Promise<Map<string, TierRow[]>> {
  const byName = new Map<string, TierRow[]>();
  if (names.length === 0) return byName;
  const rows = await db
    .selectFrom('payout_term_tiers')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('conversion_name', 'in', names)
    .orderBy('conversion_name')
    .orderBy('position')
    .execute();
  for (const row of rows) {
    const list = byName.get(row.conversion_name) ?? [];
    list.push(row);
    byName.set(row.conversion_name, list);
  }
  return byName;
}

function toRecord(row: TermRow, tiers: Map<string, TierRow[]>): PayoutTermsRecord {
  return {
    conversionName: row.conversion_name,
    currencyId: row.currency_id,
    endUser: toReward(row.end_user_fixed, row.end_user_bps),
    affiliate: toReward(row.affiliate_fixed, row.affiliate_bps),
    upline: toUpline(row),
    tiers: (tiers.get(row.conversion_name) ?? []).map((tier) => {
      const affiliate = toReward(tier.affiliate_fixed, tier.affiliate_bps);
      if (!affiliate) throw new Error(`a tier of ${row.conversion_name} has no reward (the table's CHECK forbids it)`);
      return { audienceId: tier.audience_id, affiliate, upline: toUpline(tier) };
    }),
    endUserAllowlistAudienceId: row.end_user_allowlist_audience_id,
    affiliateAllowlistAudienceId: row.affiliate_allowlist_audience_id,
    holdDays: row.hold_days,
    requireApproval: row.require_approval,
    caps: {
      perConversion: row.cap_per_conversion,
      perEndUser: row.cap_per_end_user,
      perAffiliateWindow:
        row.cap_window_amount === null || row.cap_window_days === null ? null : { amount: row.cap_window_amount, days: row.cap_window_days },
    },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
