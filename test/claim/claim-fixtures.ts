import { randomUUID } from 'node:crypto';
import type { TestProject } from '../helpers/fixtures';
import { randomEvmAddress } from '../helpers/fixtures';
import type { Api } from '../helpers/http';
import { pollUntil } from '../helpers/poll';
import type { ServiceClients } from '../helpers/rpc';

/** What the claim HTTP tests share: a project's currency and terms, conversions, and waiting for the job. */
type WithApi = { api: Api };

export async function createCurrency(stack: WithApi, project: TestProject, body: Record<string, unknown> = {}) {
  const response = await stack.api.post(`/api/v1/projects/${project.id}/currencies`, {
    key: project.keys.admin,
    body: { chain_id: 8453, address: randomEvmAddress(), name: 'USDC', decimals: 6, type: 'erc20', ...body },
  });
  if (response.status !== 201) throw new Error(`currency creation failed: ${response.status} ${response.text}`);
  return response.body as { id: string; address: string; chain_id: number };
}

export async function putTerms(stack: WithApi, project: TestProject, name: string, body: Record<string, unknown>) {
  const response = await stack.api.request('PUT', `/api/v1/projects/${project.id}/payout-terms/${encodeURIComponent(name)}`, {
    key: project.keys.admin,
    body,
  });
  if (response.status !== 201 && response.status !== 200) throw new Error(`terms failed: ${response.status} ${response.text}`);
  return response.body;
}

export const evmUser = (identifier = randomEvmAddress()) => ({ identifier, identifier_type: 'evm_address' });

export function conversionBody(fields: Record<string, unknown> = {}) {
  return { id: `order-${randomUUID()}`, name: 'trade', user: evmUser(), reward_base: '10000', ...fields };
}

/** Polls the conversion until the job has settled it (any status but accepted), and answers it. */
export function settled(stack: WithApi, project: TestProject, id: string, timeoutMs = 15_000) {
  return pollUntil(
    async () => {
      const response = await stack.api.get(`/api/v1/conversions/${encodeURIComponent(id)}`, { key: project.keys.readOnly });
      return response.status === 200 && response.body.status !== 'accepted' ? response.body : undefined;
    },
    { timeoutMs, intervalMs: 50, what: `conversion ${id} to be processed` },
  );
}

/** Sends conversions in one batch (accepted: 200 or 202) and waits for the job to settle each. */
export async function sendSettledConversions(stack: WithApi, project: TestProject, conversions: Array<Record<string, unknown>>) {
  const response = await stack.api.post('/api/v1/conversions/batch', { key: project.keys.service, body: { conversions } });
  if (response.status !== 202 && response.status !== 200) throw new Error(`batch failed: ${response.status} ${response.text}`);
  for (const conversion of conversions) await settled(stack, project, conversion.id as string);
}

/** An affiliate of the agency service with a code, and a user it referred (at the stack's clock). */
export async function referredUser(clients: ServiceClients, project: TestProject) {
  const affiliate = { identifier: randomEvmAddress(), identifierType: 'evm_address' };
  const code = `c${randomUUID().slice(0, 8)}`;
  await clients.agency.createAffiliate({ projectId: project.id, user: affiliate, name: 'Affiliate', code });
  const user = { identifier: randomEvmAddress(), identifierType: 'evm_address' };
  await clients.agency.createReferral({ projectId: project.id, user, code });
  return { affiliate, code, user };
}

/** Conversions the agency's projection counts over the project's affiliates (at most 100 affiliates). */
async function projectedConversions(stack: WithApi, project: TestProject): Promise<number> {
  const list = await stack.api.get(`/api/v1/projects/${project.id}/affiliates?page_size=100`, { key: project.keys.admin });
  if (list.status !== 200) throw new Error(`affiliate list failed: ${list.status} ${list.text}`);
  return list.body.results.reduce((sum: number, item: { conversions: number }) => sum + item.conversions, 0);
}

/**
 * Sends conversions that each name a referral code of an affiliate, waits for the job to settle
 * each, then for the affiliate metrics projection to count them all: the figures read next include them.
 */
export async function sendAttributedConversions(stack: WithApi, project: TestProject, conversions: Array<Record<string, unknown>>) {
  const before = await projectedConversions(stack, project);
  await sendSettledConversions(stack, project, conversions);
  const expected = before + conversions.length;
  await pollUntil(async () => (await projectedConversions(stack, project)) === expected, {
    timeoutMs: 15_000,
    intervalMs: 50,
    what: `the projection to count ${expected} conversions`,
  });
}
