import { randomUUID } from 'node:crypto';
import type { AgencyServiceClient } from '../../../gen/referral/agency/v1/agency';
import type { createGrpcClient } from '../../../services/platform/grpc/client';
import { conversionBody, createCurrency, putTerms } from '../../claim/claim-fixtures';
import { createProject, randomEvmAddress } from '../fixtures';
import type { FaultStack } from './fault-stack';

/**
 * The stream the consumers' fault tests kill a process in the middle of: a project whose one
 * affiliate (paid `affiliateReward` per conversion) referred 40 users, and 8 batches of `batchSize`
 * conversions of those users (volume 1.5, revenue 0.25 each) sent through the gateway.
 */
export async function sendReferredConversions(
  stack: FaultStack,
  agency: ReturnType<typeof createGrpcClient<AgencyServiceClient>>,
  { affiliateReward, batchSize }: { affiliateReward: bigint; batchSize: number },
) {
  const project = await createProject(stack.gateway);
  const currency = await createCurrency(stack.gateway, project);
  await putTerms(stack.gateway, project, 'trade', { currency_id: currency.id, affiliate: { fixed: String(affiliateReward) } });
  const affiliateUser = { identifier: randomEvmAddress(), identifierType: 'evm_address' };
  const code = `m${randomUUID().slice(0, 8)}`;
  const affiliate = await agency.call.createAffiliate({ projectId: project.id, user: affiliateUser, name: 'Affiliate', code });
  const users = Array.from({ length: 40 }, () => randomEvmAddress());
  for (const identifier of users)
    await agency.call.createReferral({ projectId: project.id, user: { identifier, identifierType: 'evm_address' }, code });
  const batches = Array.from({ length: 8 }, (_, b) =>
    Array.from({ length: batchSize }, (_, i) =>
      conversionBody({
        user: { identifier: users[(b * batchSize + i) % users.length], identifier_type: 'evm_address' },
        volume_usd: '1.5',
        revenue_usd: '0.25',
      }),
    ),
  );
  for (const conversions of batches) {
    const answer = await stack.gateway.api.post('/api/v1/conversions/batch', { key: project.keys.service, body: { conversions } });
    if (answer.status !== 202) throw new Error(`conversion batch refused: ${answer.status} ${answer.text}`);
  }
  return { project, currency, affiliate, affiliateUser, users, total: batches.flat().length };
}
