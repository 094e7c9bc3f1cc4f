import type { ApiResult } from '../../api/client';
import {
  type CurrencyAmount,
  formatBasisPoints,
  formatCount,
  formatCurrencyAmount,
  formatDate,
  formatDateTime,
  shortIdentifier,
} from '../../ui/format';

type HistoryEntry = ApiResult<'/api/v1/projects/{projectId}/affiliates/{userIdentifier}/history', 'get'>['results'][number];

/** The fields a history entry's data may carry (services/rules/affiliate-history.ts), read loosely: an older entry may lack one. */
type Data = Record<string, unknown>;

const text = (data: Data, name: string): string | null => (typeof data[name] === 'string' && data[name] !== '' ? data[name] : null);
const flag = (data: Data, name: string): boolean => data[name] === true;
/** An affiliate the entry names ({id, identifier, identifier_type}), shortened as the tables do. */
const who = (data: Data, name: string): string => {
  const value = data[name] as { identifier?: unknown } | null | undefined;
  return typeof value?.identifier === 'string' ? shortIdentifier(value.identifier) : 'an affiliate no longer known';
};
/** ": the reason." when there is one, else "." */
const because = (reason: string | null): string => (reason ? `: ${reason}.` : '.');

/** What the master's binding ended with, as a clause. */
function endedBy(data: Data): string {
  if (flag(data, 'master_removed')) return ', when the master status was removed';
  if (flag(data, 'became_master')) return ', when it was designated a master itself';
  return '';
}

/**
 * One history entry as a sentence an admin reads ("Earned 1.5 USDC from 2 conversions on 2026-11-29."),
 * its figures formatted as everywhere else; ids are left out (the admin who acted is one of the keys).
 */
export function historySentence(entry: Pick<HistoryEntry, 'type' | 'data'>): string {
  const data: Data = entry.data;
  switch (entry.type) {
    case 'joined': {
      const name = text(data, 'name');
      const region = text(data, 'region');
      return `Joined the program${name ? ` as ${name}` : ''}${region ? ` (region ${region})` : ''}.`;
    }
    case 'application_submitted':
      return `Applied${text(data, 'name') ? ` as ${text(data, 'name')}` : ''}${text(data, 'code') ? `, asking for the code ${text(data, 'code')}` : ''}.`;
    case 'application_held':
      return `Application put on hold${because(text(data, 'note'))}`;
    case 'application_approved':
      return `Application approved${text(data, 'granted_code') ? `, with the code ${text(data, 'granted_code')}` : ''}.`;
    case 'application_rejected':
      return `Application rejected${because(text(data, 'reason'))}`;
    case 'code_created':
      return `Registered the code ${text(data, 'code') ?? '(not recorded)'}.`;
    case 'suspended':
      return `Suspended${because(text(data, 'reason'))}`;
    case 'reactivated':
      return `Reactivated after a suspension${text(data, 'suspended_at') ? ` since ${formatDateTime(text(data, 'suspended_at'))}` : ''}${
        text(data, 'suspension_reason') ? ` (${text(data, 'suspension_reason')})` : ''
      }.`;
    case 'flagged':
      return `Flagged for review${because(text(data, 'reason'))}`;
    case 'unflagged': {
      const when = text(data, 'flagged_at') ? `flagged on ${formatDateTime(text(data, 'flagged_at'))}` : null;
      const why = [when, text(data, 'flag_reason')].filter(Boolean).join(': ');
      return `Flag ended${flag(data, 'suspended') ? ' with a suspension' : ''}${why ? ` (${why})` : ''}.`;
    }
    case 'tier_protection_set':
      return `Tier protection set${text(data, 'expires_at') ? ` until ${formatDateTime(text(data, 'expires_at'))}` : ''}.`;
    case 'tier_protection_ended':
      return `Tier protection ended before it expired${flag(data, 'replaced') ? ', replaced by a new one' : ''}.`;
    case 'tier_protection_expired':
      return 'Tier protection ran out.';
    case 'master_designated':
      return `Designated a master affiliate with a spread of ${formatBasisPoints(Number(data.spread_bps))}${
        data.unbound_from_master ? `, which unbound it from the master ${who(data, 'unbound_from_master')}` : ''
      }.`;
    case 'master_spread_changed':
      return `Master spread changed from ${formatBasisPoints(Number(data.previous_spread_bps))} to ${formatBasisPoints(Number(data.spread_bps))}.`;
    case 'master_removed':
      return 'Master status removed.';
    case 'bound_to_master':
      return `Bound to the master ${who(data, 'master')}.`;
    case 'unbound_from_master':
      return `Unbound from the master ${who(data, 'master')}${endedBy(data)}.`;
    case 'sub_affiliate_bound':
      return `Sub-affiliate ${who(data, 'affiliate')} bound to it.`;
    case 'sub_affiliate_unbound':
      return `Sub-affiliate ${who(data, 'affiliate')} unbound from it${endedBy(data)}.`;
    case 'payouts': {
      const earned = formatCurrencyAmount(data as unknown as CurrencyAmount);
      const conversions = formatCount(Number(data.conversions ?? 0), 'conversion');
      const as = data.kind === 'agency_payout' ? ` as a master, from ${conversions} of its sub-affiliates` : ` from ${conversions}`;
      return `Earned ${earned}${as} on ${formatDate(text(data, 'date'))}.`;
    }
  }
}
