import type { GetReferrerResponse } from '../../../gen/referral/agency/v1/agency';
import type { InviteCode, ListInviteCodesResponse, UpdateInviteCodeResponse } from '../../../gen/referral/agency/v1/invites';
import { count, required } from '../../http/present';

const remaining = (maxUses: number | undefined, uses: number) => (maxUses === undefined ? null : Math.max(maxUses - uses, 0));

function presentInviteCode(code: InviteCode) {
  return {
    code: code.code,
    created_at: required(code.createdAt, 'created_at').toISOString(),
    used_by: code.usedBy.map((use) => {
      const user = required(use.user, 'used_by.user');
      return { identifier: user.identifier, identifier_type: user.identifierType, used_at: required(use.usedAt, 'used_at').toISOString() };
    }),
    max_uses: code.maxUses ?? null,
    uses: code.uses,
    remaining_uses: remaining(code.maxUses, code.uses),
    rebate_rate: null,
    clicks: count(code.clicks, 'clicks'),
    total_users: code.usedBy.length,
    total_earnings: 0,
  };
}

/** The SDK's page shape: count, and next_page while rows follow. */
export function presentInviteCodePage(page: ListInviteCodesResponse) {
  const info = required(page.pageInfo, 'page_info');
  const total = count(info.totalResults, 'total_results');
  return {
    results: page.results.map(presentInviteCode),
    count: total,
    next_page: info.page * info.pageSize < total ? info.page + 1 : null,
  };
}

export function presentUpdatedCode(code: UpdateInviteCodeResponse) {
  return { code: code.code, max_uses: code.maxUses ?? null, uses: code.uses, remaining_uses: remaining(code.maxUses, code.uses) };
}

/** Whether the user was referred, and by whom (the fields are left out when not). */
export function presentReferralStatus({ referral }: GetReferrerResponse) {
  if (!referral) return { referred: false };
  const affiliate = required(referral.affiliate, 'affiliate');
  return {
    referred: true,
    code: referral.code,
    referrer_identifier: affiliate.identifier,
    referrer_identifier_type: affiliate.identifierType,
    referred_at: required(referral.referredAt, 'referred_at').toISOString(),
  };
}
