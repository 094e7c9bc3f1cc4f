import { CodeInUseError, Fuul, UserIdentifierType } from '@fuul/sdk';
import { startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { newWallet, type TestWallet } from '../helpers/wallet';
import { creationMessage, refusal, initFuulSdk } from '../helpers/fuul-sdk';

const EVM = UserIdentifierType.EvmAddress;
/** 8 characters of the generated codes' alphabet (no 0/O, 1/I/L). */
const GENERATED = /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{8}$/;

/**
 * The @fuul/sdk's ReferralCodeService (7.41.0, unmodified) against the gateway: invite codes generated
 * for an affiliate, used, limited, disabled, and referrals ended (docs/affiliates.md#invite-codes). The
 * SDK keeps one configuration per process: this file initialises it with a service_role key, the one
 * the generating and updating calls need; what other keys may do is checked over HTTP.
 */
describe('invite codes through the @fuul/sdk', () => {
  let stack: TestStack;
  let project: TestProject;
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    initFuulSdk(stack, project.keys.service);
  });
  afterAll(() => stack.stop());

  let serial = 0;
  /** A new affiliate (through the SDK's createAffiliateCode), with an affiliate code of its own. */
  const newAffiliate = async (): Promise<{ wallet: TestWallet; code: string }> => {
    const wallet = await newWallet();
    const code = `inviter_${++serial}`;
    await Fuul.createAffiliateCode({
      userIdentifier: wallet.checksumAddress,
      identifierType: EVM,
      code,
      signature: await wallet.sign(creationMessage(code)),
    });
    return { wallet, code };
  };
  const generate = (wallet: TestWallet, quantity: number, maxUses?: number) =>
    Fuul.generateReferralCodes({ user_identifier: wallet.address, user_identifier_type: EVM, quantity, max_uses: maxUses });
  const list = (wallet: TestWallet, page?: number, pageSize?: number) =>
    Fuul.listUserReferralCodes({ user_identifier: wallet.checksumAddress, user_identifier_type: EVM, page, page_size: pageSize });
  const use = async (code: string, user: TestWallet) => {
    const message = `I am using referral code ${code.toLowerCase()}`;
    return Fuul.useReferralCode({
      code,
      user_identifier: user.checksumAddress,
      user_identifier_type: EVM,
      signature: await user.sign(message),
      signature_message: message,
    });
  };
  const status = (user: TestWallet) => Fuul.getReferralStatus({ user_identifier: user.address, user_identifier_type: EVM });

  it('generates unguessable codes for an affiliate and lists them with their uses, in the SDK’s page shape', async () => {
    const { wallet } = await newAffiliate();
    const generated = await generate(wallet, 3, 2);
    expect(generated).toHaveLength(3);
    const codes = generated.map(({ code }) => code);
    for (const code of codes) expect(code).toMatch(GENERATED);
    expect(new Set(codes).size).toBe(3);

    const all = await list(wallet);
    expect(all.count).toBe(3);
    expect(all.next_page).toBeNull();
    expect(all.results.map((item) => item.code).sort()).toEqual([...codes].sort());
    expect(all.results[0]).toEqual({
      code: expect.stringMatching(GENERATED),
      created_at: stack.clock.now().toISOString(),
      used_by: [],
      max_uses: 2,
      uses: 0,
      remaining_uses: 2,
      rebate_rate: null,
      clicks: 0,
      total_users: 0,
      total_earnings: 0,
    });
    const first = await list(wallet, 1, 2);
    expect(first).toMatchObject({ count: 3, next_page: 2 });
    expect(first.results).toHaveLength(2);
    const second = await list(wallet, 2, 2);
    expect(second).toMatchObject({ count: 3, next_page: null });
    expect([...first.results, ...second.results].map((item) => item.code).sort()).toEqual([...codes].sort());

    // Unlimited when max_uses is left out.
    const [unlimited] = await generate(wallet, 1);
    expect((await list(wallet)).results.find((item) => item.code === unlimited!.code)).toMatchObject({ max_uses: null, remaining_uses: null });
  });

  it('generates only for an affiliate of the project, and only with a service_role or admin key', async () => {
    const stranger = await newWallet();
    expect(await refusal(generate(stranger, 1))).toMatchObject({ status: 404, body: { code: 'AFFILIATE_NOT_FOUND' } });
    expect(await list(stranger)).toEqual({ results: [], count: 0, next_page: null });
    const { wallet } = await newAffiliate();
    const path = `/api/v1/referral_codes?user_identifier=${wallet.address}&user_identifier_type=evm_address&quantity=2`;
    expect((await stack.api.post(path, { key: project.keys.readOnly })).status).toBe(403);
    expect(await refusal(generate(wallet, 101))).toMatchObject({ status: 400 });
    const byAdmin = await stack.api.post(path, { key: project.keys.admin });
    expect(byAdmin.status).toBe(201);
    expect((await list(wallet)).count).toBe(2);
  });

  it('refers a user to the code’s affiliate with useReferralCode, counting the use; getReferralStatus tells it', async () => {
    const { wallet: affiliate } = await newAffiliate();
    const [{ code }] = (await generate(affiliate, 1, 5)) as [{ code: string }];
    const user = await newWallet();
    expect(await status(user)).toEqual({ referred: false });
    expect(await Fuul.getReferralCode({ code: code.toLowerCase() })).toEqual({ available: true });

    await use(code.toLowerCase(), user);
    expect(await status(user)).toEqual({
      referred: true,
      code,
      referrer_identifier: affiliate.address,
      referrer_identifier_type: 'evm_address',
      referred_at: stack.clock.now().toISOString(),
    });
    expect(await Fuul.getUserReferrer({ user_identifier: user.address, user_identifier_type: EVM })).toMatchObject({
      referrer_identifier: affiliate.address,
    });
    const [listed] = (await list(affiliate)).results;
    expect(listed).toMatchObject({
      code,
      uses: 1,
      remaining_uses: 4,
      total_users: 1,
      used_by: [{ identifier: user.address, identifier_type: 'evm_address', used_at: stack.clock.now().toISOString() }],
    });

    // The same user again, or through another affiliate's invite code: answered as today, and no use is taken.
    await use(code, user);
    const { wallet: other } = await newAffiliate();
    const [{ code: otherCode }] = (await generate(other, 1, 5)) as [{ code: string }];
    expect(await refusal(use(otherCode, user))).toMatchObject({ status: 409, body: { code: 'ALREADY_REFERRED' } });
    expect((await list(affiliate)).results[0]).toMatchObject({ uses: 1 });
    expect((await list(other)).results[0]).toMatchObject({ uses: 0, used_by: [] });
    // The affiliate cannot invite itself.
    expect(await refusal(use(code, affiliate))).toMatchObject({ status: 400, body: { code: 'SELF_REFERRAL' } });
  });

  it('stops a code at max_uses, and updateReferralCode sets a number, null (unlimited) or 0 (disabled)', async () => {
    const { wallet: affiliate } = await newAffiliate();
    const [{ code }] = (await generate(affiliate, 1, 1)) as [{ code: string }];
    await use(code, await newWallet());
    expect(await Fuul.getReferralCode({ code })).toEqual({ available: false });
    expect(await Fuul.isAffiliateCodeAvailable(code)).toBe(false);
    const late = await newWallet();
    expect(await refusal(use(code, late))).toMatchObject({ status: 409, body: { code: 'CODE_EXHAUSTED' } });
    expect(await status(late)).toEqual({ referred: false });

    await Fuul.updateReferralCode({ code: code.toLowerCase(), max_uses: null });
    expect(await Fuul.getReferralCode({ code })).toEqual({ available: true });
    expect(await Fuul.isAffiliateCodeAvailable(code)).toBe(true);
    await use(code, late);
    expect((await list(affiliate)).results[0]).toMatchObject({ max_uses: null, uses: 2, remaining_uses: null, total_users: 2 });

    await Fuul.updateReferralCode({ code, max_uses: 0 });
    expect(await Fuul.getReferralCode({ code })).toEqual({ available: false });
    expect(await refusal(use(code, await newWallet()))).toMatchObject({ status: 409, body: { code: 'CODE_EXHAUSTED' } });
    expect((await list(affiliate)).results[0]).toMatchObject({ max_uses: 0, uses: 2, remaining_uses: 0, total_users: 2 });

    await Fuul.updateReferralCode({ code, max_uses: 3 });
    expect((await list(affiliate)).results[0]).toMatchObject({ max_uses: 3, remaining_uses: 1 });
    expect(await refusal(Fuul.updateReferralCode({ code: 'NOSUCHCODE', max_uses: 3 }))).toMatchObject({
      status: 404,
      body: { code: 'INVITE_CODE_NOT_FOUND' },
    });
    const byReader = await stack.api.patch(`/api/v1/referral_codes/${code}`, { key: project.keys.readOnly, body: { max_uses: 9 } });
    expect(byReader.status).toBe(403);
    expect((await list(affiliate)).results[0]).toMatchObject({ max_uses: 3 });
  });

  it('counts uses atomically: 20 concurrent uses of a code with max_uses 3 refer exactly 3 users', async () => {
    const { wallet: affiliate } = await newAffiliate();
    const [{ code }] = (await generate(affiliate, 1, 3)) as [{ code: string }];
    const users = await Promise.all(Array.from({ length: 20 }, () => newWallet()));
    const outcomes = await Promise.allSettled(users.map((user) => use(code, user)));
    const succeeded = users.filter((_, index) => outcomes[index]!.status === 'fulfilled');
    expect(succeeded).toHaveLength(3);
    for (const [index, outcome] of outcomes.entries()) {
      if (outcome.status === 'rejected') {
        expect((outcome.reason as { response: { status: number; data: { code: string } } }).response).toMatchObject({
          status: 409,
          data: { code: 'CODE_EXHAUSTED' },
        });
        expect(await status(users[index]!)).toEqual({ referred: false });
      }
    }
    const [listed] = (await list(affiliate)).results;
    expect(listed).toMatchObject({ uses: 3, remaining_uses: 0, total_users: 3 });
    expect(listed!.used_by.map((use) => use.identifier).sort()).toEqual(succeeded.map((user) => user.address).sort());
  });

  it('keeps invite codes and affiliate codes one namespace per project, whatever the letter case', async () => {
    const { wallet: affiliate } = await newAffiliate();
    const [{ code }] = (await generate(affiliate, 1)) as [{ code: string }];
    expect(await Fuul.isAffiliateCodeFree(code.toLowerCase())).toBe(false);
    const newcomer = await newWallet();
    await expect(
      Fuul.createAffiliateCode({
        userIdentifier: newcomer.checksumAddress,
        identifierType: EVM,
        code: code.toLowerCase(),
        signature: await newcomer.sign(creationMessage(code.toLowerCase())),
      }),
    ).rejects.toBeInstanceOf(CodeInUseError);
  });

  it('ends a referral with deleteReferral, signed by the user or by an admin key; history kept, and the user may be referred again', async () => {
    const { wallet: affiliate, code: affiliateCode } = await newAffiliate();
    const [{ code }] = (await generate(affiliate, 1, 10)) as [{ code: string }];
    const user = await newWallet();
    await use(code, user);
    const ending = (message: string) => ({
      code: code.toLowerCase(),
      user_identifier: user.checksumAddress,
      user_identifier_type: EVM,
      referrer_identifier: affiliate.checksumAddress,
      referrer_identifier_type: EVM,
      signature_message: message,
    });
    const message = `I am deleting referral for user ${user.address} from code ${code}`;
    // Signed by another wallet, or a message that does not name the code: refused, nothing ended.
    expect(await refusal(Fuul.deleteReferral({ ...ending(message), signature: await affiliate.sign(message) }))).toMatchObject({
      status: 400,
      body: { code: 'INVALID_SIGNATURE' },
    });
    const elsewhere = 'I am deleting my referral';
    expect(await refusal(Fuul.deleteReferral({ ...ending(elsewhere), signature: await user.sign(elsewhere) }))).toMatchObject({
      status: 400,
      body: { code: 'SIGNATURE_MESSAGE_MISMATCH' },
    });
    expect(await status(user)).toMatchObject({ referred: true });

    await Fuul.deleteReferral({ ...ending(message), signature: await user.sign(message) });
    expect(await status(user)).toEqual({ referred: false });
    expect((await list(affiliate)).results[0]).toMatchObject({ uses: 1, used_by: [], total_users: 0 });
    expect(await refusal(Fuul.deleteReferral({ ...ending(message), signature: await user.sign(message) }))).toMatchObject({
      status: 404,
      body: { code: 'REFERRAL_NOT_FOUND' },
    });

    // Referred again, through the affiliate's own code this time; then ended by the key, without a signature.
    await use(affiliateCode, user);
    expect(await status(user)).toMatchObject({ referred: true, code: affiliateCode });
    const withoutSignature = {
      code: affiliateCode,
      user_identifier: user.address,
      user_identifier_type: EVM,
      referrer_identifier: affiliate.address,
      referrer_identifier_type: EVM,
    };
    const query = new URLSearchParams({
      user_identifier: user.address,
      user_identifier_type: 'evm_address',
      referrer_identifier: affiliate.address,
      referrer_identifier_type: 'evm_address',
    });
    const byReader = await stack.api.delete(`/api/v1/referral_codes/${affiliateCode}/referrals?${query}`, { key: project.keys.readOnly, body: {} });
    expect(byReader.status).toBe(403);
    expect(await status(user)).toMatchObject({ referred: true });
    await Fuul.deleteReferral(withoutSignature);
    expect(await status(user)).toEqual({ referred: false });

    // Both endings are kept, with who ended them.
    const { rows: history } = await stack.db.query(
      'SELECT code, ended_by, actor_api_key_id FROM agency.ended_referrals WHERE project_id = $1 AND identifier = $2 ORDER BY id',
      [project.id, user.address],
    );
    expect(history).toEqual([
      { code, ended_by: 'user', actor_api_key_id: null },
      { code: affiliateCode, ended_by: 'admin', actor_api_key_id: project.keyIds.service },
    ]);
  });
});
