import type { CreateReferralRequest } from '../../../gen/referral/agency/v1/agency';
import type { ServiceClients } from '../../clients';
import { required } from '../../http/present';
import { presentReferral } from './agency.presenters';

/**
 * Records a referral and answers as both of its paths do (POST /api/v1/referrals and the SDK's
 * use-code): 201 with the new referral, or 200 with the stored one when this affiliate had already
 * referred the user (the first referral wins and is never overwritten).
 */
export async function recordReferral(clients: ServiceClients, request: CreateReferralRequest) {
  const { referral, created } = await clients.agency.createReferral(request);
  const body = presentReferral(required(referral, 'referral'));
  return created ? { status: 201 as const, body } : { status: 200 as const, body };
}
