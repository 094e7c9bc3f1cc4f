import type { ApiResult } from '../../api/client';

type MovementKind = ApiResult<'/api/v1/projects/{projectId}/conversions', 'get'>['results'][number]['movements'][number]['kind'];

/** Each kind of payout in words: a Record over the API's enum, so a kind it adds fails the type check here until named. */
export const KIND_LABELS: Record<MovementKind, string> = {
  affiliate_payout: 'Affiliate payout',
  end_user_payout: 'End-user payout',
  agency_payout: 'Agency payout (master’s spread)',
};
