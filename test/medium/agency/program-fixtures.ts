import { randomBytes, randomUUID } from 'node:crypto';
import type { AffiliateRecord } from '../../../services/agency/repositories/affiliate-record';
import type { AgencyHarness } from '../../helpers/agency-domain';
import { randomEvmAddress } from '../../helpers/evm-addresses';

/** The agency's medium-tier fixtures: projects, users and affiliates of their own per test. */
export const newUser = () => ({ identifier: randomEvmAddress(), identifierType: 'evm_address' });
export const newProject = () => randomUUID();
/** An admin API key's id: who acts. */
export const ADMIN = randomUUID();
export const actor = { apiKeyId: ADMIN };

export const newCode = () => `c${randomBytes(5).toString('hex')}`;

/** An affiliate of the project, with a code of its own. */
export async function newAffiliate(
  harness: AgencyHarness,
  projectId: string,
  name = `Affiliate ${randomBytes(3).toString('hex')}`,
): Promise<AffiliateRecord> {
  return harness.domain.affiliates.create(projectId, newUser(), { name, code: newCode() });
}

export const userOf = (affiliate: AffiliateRecord) => affiliate.user;
