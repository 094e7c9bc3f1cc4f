import { createSegment, evmAddress, mixedCase, startStackWithProject, type TestProject } from '../test/helpers/fixtures';
import type { TestStack } from '../test/helpers/stack';
import { ReferralApiError, ReferralClient } from './index';

describe('ReferralClient against the running gateway', () => {
  let stack: TestStack;
  let project: TestProject;
  let client: ReferralClient;

  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    client = new ReferralClient({ baseUrl: `${stack.baseUrl}/`, apiKey: project.keys.service });
  });
  afterAll(() => stack.stop());

  it('returns the audiences of a user with their badges, matching an evm address in any case', async () => {
    const gold = await createSegment(stack, project, { name: 'Gold' });
    stack.clock.advance(1_000);
    const silver = await createSegment(stack, project, { name: 'Silver' });
    await stack.api.post(`/v1/audience-segments/${gold.id}/badge`, {
      key: project.keys.service,
      body: { name: 'Gold badge', description: 'Top tier', image_url: 'https://cdn.example.com/gold.png' },
    });
    const user = evmAddress(0xc11e);
    for (const segment of [gold, silver]) {
      const added = await stack.api.post(`/v1/audience-segments/${segment.id}/entries/batch?wait=true`, {
        key: project.keys.service,
        body: { entries: [{ identifier: user, identifier_type: 'evm_address' }] },
      });
      expect(added.body.status).toBe('completed');
    }

    const audiences = await client.getUserAudiences({ userIdentifier: mixedCase(user), userIdentifierType: 'evm_address' });

    expect(audiences).toEqual([
      { id: gold.id, name: 'Gold', badgeName: 'Gold badge', badgeDescription: 'Top tier', badgeImage: 'https://cdn.example.com/gold.png' },
      { id: silver.id, name: 'Silver', badgeName: null, badgeDescription: null, badgeImage: null },
    ]);
  });

  it('returns an empty list for a user in no audience', async () => {
    await expect(client.getUserAudiences({ userIdentifier: evmAddress(0xdead), userIdentifierType: 'evm_address' })).resolves.toEqual([]);
  });

  it('raises the API error with its code and field details for an invalid identifier', async () => {
    const failure = await client.getUserAudiences({ userIdentifier: '0x123', userIdentifierType: 'evm_address' }).catch((error) => error);
    expect(failure).toBeInstanceOf(ReferralApiError);
    expect(failure).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(failure.details[0].reason).toContain('evm_address');
  });

  it('raises 401 for a revoked or unknown key', async () => {
    const stranger = new ReferralClient({ baseUrl: stack.baseUrl, apiKey: 'rk_service_not-a-real-key' });
    await expect(stranger.getUserAudiences({ userIdentifier: evmAddress(1), userIdentifierType: 'evm_address' })).rejects.toMatchObject({
      status: 401,
      code: 'UNAUTHENTICATED',
    });
  });

  it('refuses an answer that is not the documented shape (e.g. a proxy’s page) instead of passing it on as audiences', async () => {
    const proxied = new ReferralClient({
      baseUrl: stack.baseUrl,
      apiKey: project.keys.service,
      fetch: async () => new Response(JSON.stringify({ results: [{ id: 7, name: 'Gold' }] }), { status: 200 }),
    });
    await expect(proxied.getUserAudiences({ userIdentifier: evmAddress(1), userIdentifierType: 'evm_address' })).rejects.toMatchObject({
      status: 200,
      code: 'UNEXPECTED_RESPONSE',
    });
  });
});
