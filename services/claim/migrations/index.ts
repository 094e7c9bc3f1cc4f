import type { Migration } from 'kysely';
import * as claimTables from './0001_claim_tables';
import * as claimCheckVouchers from './0002_claim_check_vouchers';
import * as claimCheckFillfactor from './0003_claim_check_fillfactor';
import * as conversionListIndex from './0004_conversion_list_index';
import * as outboxRelayState from './0005_outbox_relay_state';
import * as conversionHotUpdates from './0006_conversion_hot_updates';
import * as chainCursorGenesis from './0007_chain_cursor_genesis';
import * as claimCheckUint256 from './0008_claim_check_uint256';
import * as payoutAllowlists from './0009_payout_allowlists';
import * as movementStatuses from './0010_movement_statuses';
import * as reviewRules from './0011_review_rules';
import * as reversals from './0012_reversals';
import * as payoutCaps from './0013_payout_caps';
import * as rebates from './0014_rebates';
import * as referrerConversionsIndex from './0016_referrer_conversions_index';
import * as leaderboardDays from './0015_leaderboard_days';
import * as referralLevelTerms from './0017_referral_level_terms';
import * as movementLevels from './0018_movement_levels';
import * as pointCurrencies from './0019_point_currencies';
import * as pointMovements from './0020_point_movements';

/** Ordered by name; append, never edit a migration that has shipped. */
export const claimMigrations: Record<string, Migration> = {
  '0001_claim_tables': claimTables,
  '0002_claim_check_vouchers': claimCheckVouchers,
  '0003_claim_check_fillfactor': claimCheckFillfactor,
  '0004_conversion_list_index': conversionListIndex,
  '0005_outbox_relay_state': outboxRelayState,
  '0006_conversion_hot_updates': conversionHotUpdates,
  '0007_chain_cursor_genesis': chainCursorGenesis,
  '0008_claim_check_uint256': claimCheckUint256,
  '0009_payout_allowlists': payoutAllowlists,
  '0010_movement_statuses': movementStatuses,
  '0011_review_rules': reviewRules,
  '0012_reversals': reversals,
  '0013_payout_caps': payoutCaps,
  '0014_rebates': rebates,
  '0016_referrer_conversions_index': referrerConversionsIndex,
  '0015_leaderboard_days': leaderboardDays,
  '0017_referral_level_terms': referralLevelTerms,
  '0018_movement_levels': movementLevels,
  '0019_point_currencies': pointCurrencies,
  '0020_point_movements': pointMovements,
};
