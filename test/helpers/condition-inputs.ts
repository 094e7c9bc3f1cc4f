import type { Kysely } from 'kysely';
import type { AudienceDatabase } from '../../services/audience/database';
import type { IdentifierType } from '../../services/rules/identifiers';
import { recordPendingMatches } from '../../services/audience/repositories/pending-matches.repository';

/**
 * Writes the inputs of dynamic conditions (migration 0004) straight into the audience's tables, as
 * the metrics projection and the traits API would: the medium tier's way to give users figures.
 */
export interface InputUser {
  identifier: string;
  identifierType?: IdentifierType;
}

const key = (projectId: string, user: InputUser) => ({
  project_id: projectId,
  identifier_type: user.identifierType ?? 'evm_address',
  identifier: user.identifier,
});

export function conditionInputs(db: Kysely<AudienceDatabase>, projectId: string) {
  return {
    async metrics(
      user: InputUser,
      figures: { volume_usd?: string; revenue_usd?: string; conversions?: number; referred_users?: number; referred_volume_usd?: string },
    ) {
      const row = { ...key(projectId, user), ...figures, updated_at: new Date() };
      await db
        .insertInto('user_metrics')
        .values(row)
        .onConflict((c) => c.columns(['project_id', 'identifier_type', 'identifier']).doUpdateSet(figures))
        .execute();
    },
    async trait(user: InputUser, name: string, value: number | string | boolean) {
      await db
        .insertInto('user_traits')
        .values({ ...key(projectId, user), name, value: JSON.stringify(value), updated_at: new Date() })
        .onConflict((c) => c.columns(['project_id', 'identifier_type', 'identifier', 'name']).doUpdateSet({ value: JSON.stringify(value) }))
        .execute();
    },
    async conversionDay(user: InputUser, name: string, day: string, figures: { conversions: number; volume_usd?: string; revenue_usd?: string }) {
      await db
        .insertInto('user_conversion_days')
        .values({ ...key(projectId, user), name, day, ...figures })
        .execute();
    },
    async referralDay(user: InputUser, day: string, figures: { referred_users: number; referred_volume_usd?: string }) {
      await db
        .insertInto('user_referral_days')
        .values({ ...key(projectId, user), day, ...figures })
        .execute();
    },
    /** Records the user for re-matching, as the writers of its inputs do in their transactions. */
    async pending(user: InputUser, changedAt: Date = new Date()) {
      await db
        .transaction()
        .execute((trx) =>
          recordPendingMatches(trx, projectId, [{ identifier: user.identifier, identifierType: user.identifierType ?? 'evm_address' }], changedAt),
        );
    },
    async earningDay(user: InputUser, currencyId: string, day: string, amount: string) {
      await db
        .insertInto('user_earning_days')
        .values({ ...key(projectId, user), currency_id: currencyId, day, amount })
        .execute();
    },
  };
}
