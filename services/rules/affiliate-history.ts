/**
 * Shared by the agency service (which writes the history) and the gateway (which documents it).
 *
 * The vocabulary of an affiliate's activity history (GET .../affiliates/:userIdentifier/history),
 * with the fields each entry's `data` carries. `by_api_key_id` names the admin key that acted (null
 * for the affiliate's own actions and for what the service did by itself).
 *
 * Tier changes driven by metrics (a user entering or leaving a tier segment) are not entries: the
 * agency's membership projection keeps each membership's latest state, not its history, and tiers
 * are the audience service's. Tier protection, which the agency owns, is.
 */
export const HISTORY_TYPES = {
  joined: 'became an affiliate of the project: name, region',
  application_submitted: 'the user applied: application_id, name, code (the one asked for)',
  application_held: 'an admin put the application on hold: application_id, note, by_api_key_id',
  application_approved: 'an admin approved it: application_id, audience_id (the static segment joined), granted_code, by_api_key_id',
  application_rejected: 'an admin rejected it: application_id, reason, by_api_key_id',
  code_created: 'a referral code was registered: code',
  suspended: 'suspended: reason, by_api_key_id',
  reactivated: 'reactivated: suspension_reason, suspended_at, by_api_key_id',
  flagged: 'flagged for review: reason, by_api_key_id',
  unflagged: 'its flag ended: flag_reason, flagged_at, suspended (ended by a suspension), by_api_key_id',
  tier_protection_set: 'tier protection began: tier_id, expires_at, by_api_key_id',
  tier_protection_ended: 'tier protection ended before it expired: tier_id, replaced (by a new protection), by_api_key_id',
  tier_protection_expired: 'tier protection ran out: tier_id',
  master_designated:
    'designated a master affiliate: spread_bps, unbound_from_master (the master it was a sub-affiliate of until this designation ' +
    'unbound it, {id, identifier, identifier_type}; null when it was bound to none), by_api_key_id',
  master_spread_changed: 'its spread as a master changed: spread_bps, previous_spread_bps, by_api_key_id',
  master_removed: 'master status removed: by_api_key_id',
  bound_to_master: 'bound to a master as its sub-affiliate: master {id, identifier, identifier_type}, by_api_key_id',
  unbound_from_master:
    'its binding ended: master, master_removed (ended by the removal of master status), became_master (ended because it was ' +
    'designated a master itself), by_api_key_id',
  sub_affiliate_bound: 'a sub-affiliate was bound to it (a master): affiliate {id, identifier, identifier_type}, by_api_key_id',
  sub_affiliate_unbound:
    'a sub-affiliate’s binding to it ended: affiliate, master_removed, became_master (the sub-affiliate was designated a master), by_api_key_id',
  payouts:
    'what it earned on one UTC day in one currency: date, currency_id, currency_chain_id (a number), currency_address, currency_name, currency_decimals ' +
    '(null while the currency is not known yet), kind (affiliate_payout | agency_payout), amount (base units), conversions; at is the day’s latest conversion',
} as const;

export type HistoryType = keyof typeof HISTORY_TYPES;

export interface HistoryEntry {
  type: HistoryType;
  at: Date;
  data: Record<string, unknown>;
}
