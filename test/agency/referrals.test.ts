import { randomEvmAddress, startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { newWallet } from '../helpers/wallet';

const START = '2026-11-21T12:00:00.000Z';

/**
 * Referrals over HTTP: POST /api/v1/referrals (the project's backend), the SDK's
 * PATCH /api/v1/referral_codes/{code}/use (the user's signature) and GET /api/v1/user/referrer.
 * The rules themselves are tested on the domain in test/medium/agency/referrals.test.ts.
 */
describe('referrals over HTTP', () => {
  let stack: TestStack;
  let project: TestProject;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
  });
  afterAll(() => stack.stop());

  let codes = 0;
  const newAffiliate = async (identifier = randomEvmAddress()) => {
    codes += 1;
    const code = `Ref_${codes}`;
    const response = await stack.api.post(`/api/v1/projects/${project.id}/affiliates`, {
      key: project.keys.admin,
      body: { identifier, identifier_type: 'evm_address', name: `Affiliate ${codes}`, code },
    });
    if (response.status !== 201) throw new Error(`affiliate creation failed: ${response.status} ${response.text}`);
    return { identifier, code, id: response.body.id as string };
  };
  const refer = (user: string, code: string, key = project.keys.service) =>
    stack.api.post('/api/v1/referrals', { key, body: { user_identifier: user, user_identifier_type: 'evm_address', code } });
  const referrer = (user: string, key = project.keys.readOnly) =>
    stack.api.get(`/api/v1/user/referrer?user_identifier=${user}&user_identifier_type=evm_address`, { key });

  it('records a referral (201), answers the same one again with 200, and another affiliate with 409 ALREADY_REFERRED', async () => {
    const alice = await newAffiliate();
    const bob = await newAffiliate();
    const user = randomEvmAddress();
    stack.clock.set(START);
    const expected = {
      user_identifier: user,
      user_identifier_type: 'evm_address',
      affiliate: { id: alice.id, identifier: alice.identifier },
      code: alice.code,
      referred_at: START,
    };
    expect(await refer(user.toUpperCase().replace('0X', '0x'), alice.code.toLowerCase())).toMatchObject({ status: 201, body: expected });
    stack.clock.advance(60_000);
    expect(await refer(user, alice.code)).toMatchObject({ status: 200, body: expected });
    expect(await refer(user, bob.code)).toMatchObject({
      status: 409,
      body: { status: 409, code: 'ALREADY_REFERRED', message: expect.any(String), details: [] },
    });
  });

  it('lets exactly one of 100 concurrent referrals of one user through different affiliates win: one 201, 99 409', async () => {
    const affiliates = [];
    for (let n = 0; n < 100; n += 1) affiliates.push(await newAffiliate());
    const user = randomEvmAddress();
    const responses = await Promise.all(affiliates.map((affiliate) => refer(user, affiliate.code)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(99);
    expect(new Set(responses.filter((response) => response.status === 409).map((response) => response.body.code))).toEqual(
      new Set(['ALREADY_REFERRED']),
    );
    const winner = responses.find((response) => response.status === 201)!.body.affiliate.id;
    const { rows } = await stack.db.query('SELECT affiliate_id FROM agency.referrals WHERE identifier = $1', [user]);
    expect(rows).toEqual([{ affiliate_id: winner }]);
    expect(await referrer(user)).toMatchObject({
      status: 200,
      body: { referrer_identifier: responses.find((r) => r.status === 201)!.body.affiliate.identifier },
    });
  });

  it('refuses self-referral (400), a suspended affiliate’s code (409) and an unknown code (404), storing nothing', async () => {
    const alice = await newAffiliate();
    expect(await refer(alice.identifier, alice.code)).toMatchObject({ status: 400, body: { code: 'SELF_REFERRAL' } });
    await stack.api.post(`/api/v1/projects/${project.id}/affiliates/${alice.identifier}/suspend`, {
      key: project.keys.admin,
      body: { reason: 'fraud' },
    });
    const user = randomEvmAddress();
    expect(await refer(user, alice.code)).toMatchObject({ status: 409, body: { code: 'AFFILIATE_SUSPENDED' } });
    expect(await refer(user, 'nobody_has_this')).toMatchObject({ status: 404, body: { code: 'CODE_NOT_FOUND' } });
    expect(await refer(user, 'no')).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect(await refer('0x12', alice.code)).toMatchObject({ status: 400, body: { details: [{ field: 'user.identifier' }] } });
    const { rows } = await stack.db.query('SELECT count(*)::int AS n FROM agency.referrals WHERE identifier = $1', [user]);
    expect(rows[0].n).toBe(0);
  });

  it('takes only service_role keys on /api/v1/referrals', async () => {
    const alice = await newAffiliate();
    for (const key of [project.keys.admin, project.keys.readOnly]) {
      expect(await refer(randomEvmAddress(), alice.code, key)).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    }
    expect(await stack.api.post('/api/v1/referrals', { body: {} })).toMatchObject({ status: 401 });
  });

  it('answers the referrer as the SDK reads it, with nulls and [] when nobody referred the user', async () => {
    const alice = await newAffiliate();
    await stack.api.post(`/api/v1/projects/${project.id}/affiliates/${alice.identifier}/codes`, {
      key: project.keys.admin,
      body: { code: 'alice_second' },
    });
    const user = randomEvmAddress();
    expect(await referrer(user)).toEqual(
      expect.objectContaining({
        status: 200,
        body: {
          user_identifier: user,
          referrer_identifier: null,
          referrer_name: null,
          referrer_code: null,
          referrer_codes: [],
          referred_at: null,
          referrer_user_rebate_rate: null,
        },
      }),
    );
    const referredAt = stack.clock.now().toISOString();
    await refer(user, 'ALICE_SECOND');
    expect((await referrer(user.toUpperCase().replace('0X', '0x'), project.keys.service)).body).toEqual({
      user_identifier: user,
      referrer_identifier: alice.identifier,
      referrer_name: expect.stringMatching(/^Affiliate /),
      referrer_code: alice.code,
      referrer_codes: [alice.code, 'alice_second'],
      referred_at: referredAt,
      referrer_user_rebate_rate: null,
    });
  });

  describe('PATCH /api/v1/referral_codes/{code}/use (the user signs a message naming the code)', () => {
    const use = (code: string, user: string, body: Record<string, unknown>) =>
      stack.api.patch(`/api/v1/referral_codes/${code}/use?user_identifier=${user}&user_identifier_type=evm_address`, {
        key: project.keys.readOnly,
        body,
      });

    it('refers the signing user (201), then answers 200 for the same code again', async () => {
      const alice = await newAffiliate();
      const wallet = await newWallet();
      const message = `I accept the referral code ${alice.code.toLowerCase()}.`;
      const body = { signature: await wallet.sign(message), signature_message: message, chain_id: 8453 };
      expect(await use(alice.code, wallet.checksumAddress, body)).toMatchObject({
        status: 201,
        body: { user_identifier: wallet.address, affiliate: { id: alice.id }, code: alice.code },
      });
      expect(await use(alice.code, wallet.address, body)).toMatchObject({ status: 200 });
    });

    it('refuses a signature by another wallet (invalid signature), a message that does not name the code, and a malformed signature', async () => {
      const alice = await newAffiliate();
      const wallet = await newWallet();
      const impostor = await newWallet();
      const message = `Use ${alice.code}`;
      expect(await use(alice.code, wallet.address, { signature: await impostor.sign(message), signature_message: message })).toMatchObject({
        status: 400,
        body: { code: 'INVALID_SIGNATURE', message: 'invalid signature' },
      });
      const other = `Use ${alice.code}x`;
      expect(await use(alice.code, wallet.address, { signature: await wallet.sign(other), signature_message: other })).toMatchObject({
        status: 400,
        body: { code: 'SIGNATURE_MESSAGE_MISMATCH' },
      });
      expect(await use(alice.code, wallet.address, { signature: '0xnothex', signature_message: message })).toMatchObject({
        status: 400,
        body: { message: 'invalid signature' },
      });
      expect((await referrer(wallet.address)).body.referrer_identifier).toBeNull();
    });
  });
});
