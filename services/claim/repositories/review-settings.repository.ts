import type { Kysely } from 'kysely';
import type { ClaimDatabase } from '../database';
import { NO_REVIEW_RULES, type ReviewSettings } from '../domain/review-rules';

export interface ReviewSettingsRecord extends ReviewSettings {
  /** null while the project never changed its settings (every rule off). */
  updatedAt: Date | null;
}

/** The fields a change sets: a key absent leaves its setting as it is, null turns the rule off. */
export type ReviewSettingsChange = Partial<ReviewSettings>;

const COLUMNS = ['max_conversions_per_user_per_hour', 'min_seconds_from_referral_to_conversion', 'max_reward_per_conversion', 'updated_at'] as const;

/** A project's review limits (migration 0011): one row per project, created by its first change. */
export class ReviewSettingsRepository {
  constructor(private readonly db: Kysely<ClaimDatabase>) {}

  async get(projectId: string): Promise<ReviewSettingsRecord> {
    const row = await this.db.selectFrom('review_settings').select(COLUMNS).where('project_id', '=', projectId).executeTakeFirst();
    return row ? toRecord(row) : { ...NO_REVIEW_RULES, updatedAt: null };
  }

  /** Applies the change in one statement (an upsert: concurrent changes of different fields both land). */
  async update(projectId: string, change: ReviewSettingsChange, now: Date): Promise<ReviewSettingsRecord> {
    const set = {
      ...(change.maxConversionsPerUserPerHour !== undefined && { max_conversions_per_user_per_hour: change.maxConversionsPerUserPerHour }),
      ...(change.minSecondsFromReferralToConversion !== undefined && {
        min_seconds_from_referral_to_conversion: change.minSecondsFromReferralToConversion,
      }),
      ...(change.maxRewardPerConversion !== undefined && { max_reward_per_conversion: change.maxRewardPerConversion }),
    };
    const row = await this.db
      .insertInto('review_settings')
      .values({
        project_id: projectId,
        max_conversions_per_user_per_hour: null,
        min_seconds_from_referral_to_conversion: null,
        max_reward_per_conversion: null,
        ...set,
        created_at: now,
        updated_at: now,
      })
      .onConflict((conflict) => conflict.column('project_id').doUpdateSet({ ...set, updated_at: now }))
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
    return toRecord(row);
  }
}

function toRecord(row: {
  max_conversions_per_user_per_hour: number | null;
  min_seconds_from_referral_to_conversion: number | null;
  max_reward_per_conversion: bigint | null;
  updated_at: Date;
}): ReviewSettingsRecord {
  return {
    maxConversionsPerUserPerHour: row.max_conversions_per_user_per_hour,
    minSecondsFromReferralToConversion: row.min_seconds_from_referral_to_conversion,
    maxRewardPerConversion: row.max_reward_per_conversion,
    updatedAt: row.updated_at,
  };
}
