import type { Migration } from 'kysely';
import * as audienceTables from './0001_audience_tables';
import * as eventOutbox from './0002_event_outbox';
import * as segmentTierRank from './0003_segment_tier_rank';
import * as conditionInputs from './0004_condition_inputs';
import * as segmentEvaluations from './0006_segment_evaluations';
import * as pendingMatches from './0007_pending_matches';
import * as publishSegmentTiers from './0008_publish_segment_tiers';
import * as conditionInputFillfactor from './0009_condition_input_fillfactor';
import * as outboxRelayState from './0010_outbox_relay_state';
import * as unboundedEarningDays from './0011_unbounded_earning_days';
import * as conversionReversals from './0012_conversion_reversals';
import * as userEventDays from './0013_user_event_days';

/** Ordered by name; append, never edit a migration that has shipped. */
export const audienceMigrations: Record<string, Migration> = {
  '0001_audience_tables': audienceTables,
  '0002_event_outbox': eventOutbox,
  '0003_segment_tier_rank': segmentTierRank,
  '0004_condition_inputs': conditionInputs,
  '0006_segment_evaluations': segmentEvaluations,
  '0007_pending_matches': pendingMatches,
  '0008_publish_segment_tiers': publishSegmentTiers,
  '0009_condition_input_fillfactor': conditionInputFillfactor,
  '0010_outbox_relay_state': outboxRelayState,
  '0011_unbounded_earning_days': unboundedEarningDays,
  '0012_conversion_reversals': conversionReversals,
  '0013_user_event_days': userEventDays,
};
