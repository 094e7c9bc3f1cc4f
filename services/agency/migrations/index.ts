import type { Migration } from 'kysely';
import * as agencyTables from './0001_agency_tables';
import * as codeOrder from './0002_code_order';
import * as agencyPrograms from './0003_agency_programs';
import * as eventOutbox from './0004_event_outbox';
import * as affiliateMetrics from './0005_affiliate_metrics';
import * as masterHistoryIndexes from './0006_master_history_indexes';
import * as affiliateListFilters from './0007_affiliate_list_filters';
import * as affiliateFilterEntries from './0008_affiliate_filter_entries';
import * as affiliateListStatusRegion from './0009_affiliate_list_status_region';
import * as segmentTiers from './0010_segment_tiers';
import * as taxStatusProjection from './0011_tax_status_projection';
import * as metricsFillfactor from './0012_metrics_fillfactor';
import * as outboxRelayState from './0013_outbox_relay_state';
import * as endUsersReferred from './0014_end_users_referred';
import * as bindingEndedByDesignation from './0015_binding_ended_by_designation';
import * as programSettings from './0016_program_settings';
import * as unboundedEarnings from './0017_unbounded_earnings';
import * as affiliateFlags from './0018_affiliate_flags';
import * as conversionReversals from './0019_conversion_reversals';
import * as trackingEvents from './0020_tracking_events';
import * as attributionSettings from './0021_attribution_settings';
import * as inviteCodes from './0022_invite_codes';
import * as affiliateClicks from './0023_affiliate_clicks';
import * as referralLevels from './0024_referral_levels';
import * as affiliateBoardSizes from './0025_affiliate_board_sizes';
import * as affiliateMembershipsOnly from './0026_affiliate_memberships_only';

/** Ordered by name; append, never edit a migration that has shipped. */
export const agencyMigrations: Record<string, Migration> = {
  '0001_agency_tables': agencyTables,
  '0002_code_order': codeOrder,
  '0003_agency_programs': agencyPrograms,
  '0004_event_outbox': eventOutbox,
  '0005_affiliate_metrics': affiliateMetrics,
  '0006_master_history_indexes': masterHistoryIndexes,
  '0007_affiliate_list_filters': affiliateListFilters,
  '0008_affiliate_filter_entries': affiliateFilterEntries,
  '0009_affiliate_list_status_region': affiliateListStatusRegion,
  '0010_segment_tiers': segmentTiers,
  '0011_tax_status_projection': taxStatusProjection,
  '0012_metrics_fillfactor': metricsFillfactor,
  '0013_outbox_relay_state': outboxRelayState,
  '0014_end_users_referred': endUsersReferred,
  '0015_binding_ended_by_designation': bindingEndedByDesignation,
  '0016_program_settings': programSettings,
  '0017_unbounded_earnings': unboundedEarnings,
  '0018_affiliate_flags': affiliateFlags,
  '0019_conversion_reversals': conversionReversals,
  '0020_tracking_events': trackingEvents,
  '0021_attribution_settings': attributionSettings,
  '0022_invite_codes': inviteCodes,
  '0023_affiliate_clicks': affiliateClicks,
  '0024_referral_levels': referralLevels,
  '0025_affiliate_board_sizes': affiliateBoardSizes,
  '0026_affiliate_memberships_only': affiliateMembershipsOnly,
};
