import { CodeInUseError, Fuul, InvalidSignatureError, UserIdentifierType } from '@fuul/sdk';
import { conversionBody, createCurrency, putTerms, sendAttributedConversions } from '../claim/claim-fixtures';
import { audienceEventsProjected } from '../helpers/agency-projections';
import { createSegment, useStackWithProject } from '../helpers/fixtures';
import { newWallet, type TestWallet } from '../helpers/wallet';
import { newSolanaWallet } from '../helpers/ed25519-wallet';
import { creationMessage, updateMessage, rebateMessage, initFuulSdk } from '../helpers/fuul-sdk';

const EVM = UserIdentifierType.EvmAddress;

/**
 * The @fuul/sdk's affiliate-code methods of issue 24 §2, through the published SDK itself against the
 * stack: createAffiliateCode with a rebate rate, updateAffiliateCode, updateRebateRate, the figures of
 * getAffiliateInfo's codes[] and getUserReferrer's rebate rate; and the admin's rate edit beside them.
 */
describe('affiliate codes through the @fuul/sdk', () => {
  const { stack, project } = useStackWithProject();
  beforeAll(() => initFuulSdk(stack, project.keys.readOnly));

  const createCode = async (wallet: TestWallet, code: string, userRebateRate?: number) =>
    Fuul.createAffiliateCode({
      userIdentifier: wallet.checksumAddress,
      identifierType: EVM,
      code,
      signature: await wallet.sign(creationMessage(code)),
      userRebateRate,
    });
  const updateCode = async (wallet: TestWallet, code: string, signer = wallet, signedCode = code) =>
    Fuul.updateAffiliateCode({
      userIdentifier: wallet.checksumAddress,
      identifierType: EVM,
      code,
      signature: await signer.sign(updateMessage(signedCode)),
    });
  const setRate = async (wallet: TestWallet, code: string, rebateRate: number, signedRate = rebateRate) =>
    Fuul.updateRebateRate({
      userIdentifier: wallet.checksumAddress,
      identifierType: EVM,
      code,
      rebateRate,
      signature: await wallet.sign(rebateMessage(code, signedRate)),
      sourceProjectId: project.id,
    });
  const info = async (wallet: TestWallet) => (await Fuul.getAffiliateInfo(wallet.checksumAddress, EVM))!;
  const referrer = (user: TestWallet) => Fuul.getUserReferrer({ user_identifier: user.address, user_identifier_type: EVM });
  const refer = async (user: TestWallet, code: string) => {
    const response = await stack.api.post('/api/v1/referrals', {
      key: project.keys.service,
      body: { user_identifier: user.address, user_identifier_type: 'evm_address', code },
    });
    expect(response.status).toBe(201);
  };
  const storedRates = async (wallet: TestWallet) =>
    (
      await stack.db.query(
        `SELECT c.code, c.user_rebate_rate_bps FROM agency.affiliate_codes c JOIN agency.affiliates a ON a.id = c.affiliate_id
         WHERE a.identifier = $1 ORDER BY c.id`,
        [wallet.address],
      )
    ).rows;

  it('creates a code with the user rebate rate the SDK sends, kept in basis points, and refuses a rate out of range or too precise', async () => {
    const wallet = await newWallet();
    await createCode(wallet, 'RateAda', 0.05);
    expect(await storedRates(wallet)).toEqual([{ code: 'RateAda', user_rebate_rate_bps: 500 }]);
    const affiliate = await info(wallet);
    expect(affiliate.codes).toEqual([
      { code: 'RateAda', created_at: stack.clock.now().toISOString(), uses: 0, clicks: 0, total_users: 0, total_earnings: 0, rebate_rate: 0.05 },
    ]);
    expect(affiliate.rebate_rate).toBe(0.05);

    // Without a rate the code has none.
    const plain = await newWallet();
    await createCode(plain, 'RateNone');
    expect((await info(plain)).codes[0]!.rebate_rate).toBeNull();

    for (const [code, rate] of [
      ['RateTooHigh', 0.21],
      ['RateNegative', -0.01],
      ['RateThreeDecimals', 0.055],
    ] as const) {
      const refused = await newWallet();
      await expect(createCode(refused, code, rate)).rejects.toThrow(/user_rebate_rate/);
      expect(await Fuul.getAffiliateInfo(refused.address, EVM)).toBeNull();
    }
    // The bounds themselves are rates.
    const top = await newWallet();
    await createCode(top, 'RateTop', 0.2);
    expect(await storedRates(top)).toEqual([{ code: 'RateTop', user_rebate_rate_bps: 2000 }]);
  });

  it('updates the code: the new one is added with the old one’s rate, the old referrals keep their code and rate', async () => {
    const wallet = await newWallet();
    await createCode(wallet, 'UpOld', 0.1);
    const early = await newWallet();
    await refer(early, 'upold');

    await updateCode(wallet, 'UpNew');
    const affiliate = await info(wallet);
    expect(affiliate.codes.map(({ code, uses, rebate_rate }) => ({ code, uses, rebate_rate }))).toEqual([
      { code: 'UpOld', uses: 1, rebate_rate: 0.1 },
      { code: 'UpNew', uses: 0, rebate_rate: 0.1 },
    ]);
    const late = await newWallet();
    await refer(late, 'UPNEW');
    const referrals = await stack.db.query('SELECT identifier, code FROM agency.referrals WHERE identifier = ANY($1) ORDER BY code DESC', [
      [early.address, late.address],
    ]);
    expect(referrals.rows).toEqual([
      { identifier: early.address, code: 'UpOld' },
      { identifier: late.address, code: 'UpNew' },
    ]);
    expect(await referrer(early)).toMatchObject({ referrer_codes: ['UpOld', 'UpNew'], referrer_user_rebate_rate: 0.1 });

    // A retry changes nothing.
    await updateCode(wallet, 'upnew');
    expect((await info(wallet)).codes.map((code) => code.code)).toEqual(['UpOld', 'UpNew']);
  });

  it('refuses a code update signed by another wallet or over another code, a code held by another affiliate, and a stranger', async () => {
    const wallet = await newWallet();
    await createCode(wallet, 'GuardOne');
    const other = await newWallet();
    await createCode(other, 'GuardTwo');

    await expect(updateCode(wallet, 'GuardThree', other)).rejects.toBeInstanceOf(InvalidSignatureError);
    await expect(updateCode(wallet, 'GuardThree', wallet, 'GuardFour')).rejects.toBeInstanceOf(InvalidSignatureError);
    await expect(updateCode(wallet, 'guardtwo')).rejects.toBeInstanceOf(CodeInUseError);
    const stranger = await newWallet();
    await expect(updateCode(stranger, 'GuardFive')).rejects.toThrow(/not an affiliate/);
    expect((await info(wallet)).codes.map((code) => code.code)).toEqual(['GuardOne']);
    expect(await Fuul.isAffiliateCodeFree('GuardFive')).toBe(true);
  });

  it('sets a code’s rebate rate with the affiliate’s signature over the code and the rate; a bad signature or rate changes nothing', async () => {
    const wallet = await newWallet();
    await createCode(wallet, 'RebBase');
    await updateCode(wallet, 'RebSecond');
    const user = await newWallet();
    await refer(user, 'RebBase');
    expect((await referrer(user)).referrer_user_rebate_rate).toBeNull();

    await expect(setRate(wallet, 'RebBase', 0.15, 0.2)).rejects.toBeInstanceOf(InvalidSignatureError);
    await expect(setRate(wallet, 'RebBase', 0.25)).rejects.toThrow(/rebate_rate/);
    await expect(setRate(wallet, 'RebBase', 0.075)).rejects.toThrow(/rebate_rate/);
    // In the standard error body, before any signature is looked at.
    const raw = await stack.api.post(`/api/v1/affiliates/${wallet.address}/rebate-rate`, {
      key: project.keys.readOnly,
      body: { identifier_type: 'evm_address', code: 'RebBase', signature: '0x00', rebate_rate: 0.3 },
    });
    expect(raw).toMatchObject({
      status: 400,
      body: { status: 400, code: 'VALIDATION_FAILED', message: expect.stringContaining('rebate_rate'), details: [{ field: 'rebate_rate' }] },
    });
    await expect(setRate(wallet, 'NotMine', 0.1)).rejects.toThrow(/holds no code/);
    expect(await storedRates(wallet)).toEqual([
      { code: 'RebBase', user_rebate_rate_bps: null },
      { code: 'RebSecond', user_rebate_rate_bps: null },
    ]);

    // The code in any letter case; 0.07 is a two-decimal rate even though 0.07 * 100 is not exactly 7 in floating point.
    await setRate(wallet, 'rebbase', 0.07);
    expect(await storedRates(wallet)).toEqual([
      { code: 'RebBase', user_rebate_rate_bps: 700 },
      { code: 'RebSecond', user_rebate_rate_bps: null },
    ]);
    expect((await info(wallet)).codes.map((code) => code.rebate_rate)).toEqual([0.07, null]);
    expect(await referrer(user)).toEqual({
      user_identifier: user.address,
      referrer_identifier: wallet.address,
      referrer_name: 'RebBase',
      referrer_code: 'RebBase',
      referrer_codes: ['RebBase', 'RebSecond'],
      referred_at: stack.clock.now().toISOString(),
      referrer_user_rebate_rate: 0.07,
    });
    // A rate of 0 is a rate (none paid), not the absence of one.
    await setRate(wallet, 'RebBase', 0);
    expect((await referrer(user)).referrer_user_rebate_rate).toBe(0);
  });

  it('lets an admin set and clear a code’s rebate rate for the dashboard', async () => {
    const wallet = await newWallet();
    await createCode(wallet, 'AdminRate');
    const path = `/api/v1/projects/${project.id}/affiliates/${wallet.address}/codes/adminrate`;
    const set = await stack.api.request('PATCH', path, { key: project.keys.admin, body: { rebate_rate: 0.12 } });
    expect(set.status).toBe(200);
    expect(set.body.codes).toEqual([{ code: 'AdminRate', uses: 0, created_at: stack.clock.now().toISOString(), rebate_rate: 0.12, clicks: null }]);
    expect((await info(wallet)).codes[0]!.rebate_rate).toBe(0.12);

    const tooPrecise = await stack.api.request('PATCH', path, { key: project.keys.admin, body: { rebate_rate: 0.125 } });
    expect(tooPrecise).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED', details: [{ field: 'rebate_rate' }] } });
    const readOnly = await stack.api.request('PATCH', path, { key: project.keys.readOnly, body: { rebate_rate: 0.1 } });
    expect(readOnly.status).toBe(403);
    const unknown = await stack.api.request('PATCH', `${path}-nope`, { key: project.keys.admin, body: { rebate_rate: 0.1 } });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'CODE_NOT_FOUND' } });
    expect((await info(wallet)).codes[0]!.rebate_rate).toBe(0.12);

    const cleared = await stack.api.request('PATCH', path, { key: project.keys.admin, body: { rebate_rate: null } });
    expect(cleared.status).toBe(200);
    expect((await info(wallet)).codes[0]!.rebate_rate).toBeNull();
  });

  it('answers each code’s clicks, users and earnings exactly, and the admin detail its clicks', async () => {
    const wallet = await newWallet();
    await createCode(wallet, 'FigOne');
    await updateCode(wallet, 'FigTwo');
    const [u1, u2, u3] = [await newWallet(), await newWallet(), await newWallet()];
    await refer(u1, 'FigOne');
    await refer(u2, 'figone');
    await refer(u3, 'FigTwo');

    // Clicks are stored per lower-cased code, tracking id and day; another project's clicks of the same code do not count.
    const click = (projectId: string, code: string, trackingId: string, day: string) =>
      stack.db.query('INSERT INTO agency.code_clicks (project_id, code, tracking_id, day, first_at) VALUES ($1, $2, $3, $4::date, $4::timestamptz)', [
        projectId,
        code,
        trackingId,
        day,
      ]);
    await click(project.id, 'figone', 't-1', '2026-01-01');
    await click(project.id, 'figone', 't-1', '2026-01-02');
    await click(project.id, 'figone', 't-2', '2026-01-01');
    await click(project.id, 'figtwo', 't-3', '2026-01-01');
    await click('00000000-0000-4000-8000-0000000000ff', 'figone', 't-9', '2026-01-01');

    // The affiliate earns 10% of each reward in a 6-decimal currency: 1, 0.5 and 0.25 of it.
    const usdc = await createCurrency(stack, project, { name: 'USDC', decimals: 6 });
    await putTerms(stack, project, 'trade', { currency_id: usdc.id, affiliate: { bps: 1_000 } });
    await sendAttributedConversions(stack, project, [
      conversionBody({ user: { identifier: u1.address, identifier_type: 'evm_address' }, reward_base: '10000000' }),
      conversionBody({ user: { identifier: u2.address, identifier_type: 'evm_address' }, reward_base: '5000000' }),
      conversionBody({ user: { identifier: u3.address, identifier_type: 'evm_address' }, reward_base: '2500000' }),
    ]);

    const affiliate = await info(wallet);
    expect(
      affiliate.codes.map(({ code, uses, clicks, total_users, total_earnings }) => ({ code, uses, clicks, total_users, total_earnings })),
    ).toEqual([
      { code: 'FigOne', uses: 2, clicks: 3, total_users: 2, total_earnings: 1.5 },
      { code: 'FigTwo', uses: 1, clicks: 1, total_users: 1, total_earnings: 0.25 },
    ]);
    // The SDK's deprecated root fields are its oldest code's.
    expect(affiliate).toMatchObject({ code: 'FigOne', clicks: 3, total_users: 2, total_earnings: 1.5, current_tier: null });

    const detail = await stack.api.get(`/api/v1/projects/${project.id}/affiliates/${wallet.address}`, { key: project.keys.readOnly });
    expect(detail.body.codes.map(({ code, clicks }: { code: string; clicks: number }) => ({ code, clicks }))).toEqual([
      { code: 'FigOne', clicks: 3 },
      { code: 'FigTwo', clicks: 1 },
    ]);
  });

  it('names the affiliate’s current tier with its slug', async () => {
    const tier = await createSegment(stack, project, { name: 'Gold Tier 2', tier_rank: 1 });
    const wallet = await newWallet();
    await createCode(wallet, 'Tiered');
    const entry = await stack.api.post(`/api/v1/projects/${project.id}/audiences/${tier.id}/entries`, {
      key: project.keys.admin,
      body: { identifier: wallet.address, identifier_type: 'evm_address' },
    });
    expect(entry.status).toBe(201);
    // The agency answers tiers from its projection of the audience's events.
    await audienceEventsProjected(stack);
    expect((await info(wallet)).current_tier).toEqual({ id: tier.id, name: 'Gold Tier 2', rank: 1, slug: 'gold-tier-2' });
  });

  it('takes the signature_public_key of a Solana affiliate in the code and rate updates, and refuses another key', async () => {
    const wallet = newSolanaWallet();
    const SOLANA = UserIdentifierType.SolanaAddress;
    await Fuul.createAffiliateCode({
      userIdentifier: wallet.address,
      identifierType: SOLANA,
      code: 'SolRate',
      signature: wallet.sign(creationMessage('SolRate')),
      signaturePublicKey: wallet.address,
      userRebateRate: 0.02,
    });
    const update = (signaturePublicKey: string) =>
      Fuul.updateAffiliateCode({
        userIdentifier: wallet.address,
        identifierType: SOLANA,
        code: 'SolRateTwo',
        signature: wallet.sign(updateMessage('SolRateTwo')),
        signaturePublicKey,
      });
    await expect(update(newSolanaWallet().address)).rejects.toBeInstanceOf(InvalidSignatureError);
    await update(wallet.address);
    await Fuul.updateRebateRate({
      userIdentifier: wallet.address,
      identifierType: SOLANA,
      code: 'SolRateTwo',
      rebateRate: 0.04,
      signature: wallet.sign(rebateMessage('SolRateTwo', 0.04), 'base64'),
      signaturePublicKey: wallet.address,
    });
    const affiliate = (await Fuul.getAffiliateInfo(wallet.address, SOLANA))!;
    expect(affiliate.codes.map(({ code, rebate_rate }) => ({ code, rebate_rate }))).toEqual([
      { code: 'SolRate', rebate_rate: 0.02 },
      { code: 'SolRateTwo', rebate_rate: 0.04 },
    ]);
  });
});
