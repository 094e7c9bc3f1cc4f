import { Fuul, UserIdentifierType } from '@fuul/sdk';
import { conversionBody, createCurrency, evmUser, putTerms, settled } from '../claim/claim-fixtures';
import { createSegment, startStackWithProject, type TestProject } from '../helpers/fixtures';
import { creationMessage, FakeBrowser, rebateMessage, refusal, updateMessage, initFuulSdk } from '../helpers/fuul-sdk';
import { pollUntil } from '../helpers/poll';
import type { TestStack } from '../helpers/stack';
import { newWallet, type TestWallet } from '../helpers/wallet';

const EVM = UserIdentifierType.EvmAddress;
const APP = 'https://app.example.com/';
type Sdk = typeof Fuul;

/**
 * Issue 24's "done when": one project moving to us lives through every referral method of the published
 * @fuul/sdk (7.41.0, unmodified) against the running stack, in order, each call's effect checked through
 * the SDK where it can read it. The SDK keeps one configuration per module instance, so the page and the
 * project's server are two instances of it: the page's with the send:tracking_event key it embeds
 * (sendPageview, identifyUser, sendEvent), the server's with its service_role key (every other call).
 */
describe('a project’s referral journey through the @fuul/sdk', () => {
  let stack: TestStack;
  let project: TestProject;
  let page: Sdk;
  const browser = new FakeBrowser();
  beforeAll(async () => {
    ({ stack, project } = await startStackWithProject());
    browser.install();
    await jest.isolateModulesAsync(async () => {
      page = (await import('@fuul/sdk')).Fuul;
    });
    page.init({ apiKey: project.keys.tracking, baseApiUrl: `${stack.baseUrl}/api/v1/` });
    initFuulSdk(stack, project.keys.service);
  });
  afterAll(async () => {
    browser.uninstall();
    await stack.stop();
  });

  // What the story carries from one step to the next.
  let affiliate: TestWallet;
  let visitor: TestWallet;
  const firstCode = `Journey${Date.now().toString(36)}`;
  const newCode = `${firstCode}New`;
  const codes = async () => (await Fuul.getAffiliateCode(affiliate.checksumAddress, EVM))!.codes;

  it('registers an affiliate code with a rebate rate, adds a new code, raises the first one’s rate, and links to the first', async () => {
    affiliate = await newWallet();
    expect(await Fuul.isAffiliateCodeFree(firstCode)).toBe(true);
    expect(await Fuul.isAffiliateCodeAvailable(firstCode)).toBe(false);

    const created = await Fuul.createAffiliateCode({
      userIdentifier: affiliate.checksumAddress,
      identifierType: EVM,
      code: firstCode,
      signature: await affiliate.sign(creationMessage(firstCode)),
      userRebateRate: 0.1,
    });
    expect(created).toMatchObject({ code: firstCode, user_identifier: affiliate.address, user_identifier_type: 'evm_address' });
    expect(await Fuul.isAffiliateCodeFree(firstCode.toLowerCase())).toBe(false);
    expect(await Fuul.isAffiliateCodeAvailable(firstCode)).toBe(true);

    await Fuul.updateAffiliateCode({
      userIdentifier: affiliate.checksumAddress,
      identifierType: EVM,
      code: newCode,
      signature: await affiliate.sign(updateMessage(newCode)),
    });
    await Fuul.updateRebateRate({
      userIdentifier: affiliate.checksumAddress,
      identifierType: EVM,
      code: firstCode.toLowerCase(),
      rebateRate: 0.15,
      signature: await affiliate.sign(rebateMessage(firstCode.toLowerCase(), 0.15)),
    });
    const now = stack.clock.now().toISOString();
    const figures = { uses: 0, clicks: 0, total_users: 0, total_earnings: 0, created_at: now };
    const info = await Fuul.getAffiliateCode(affiliate.checksumAddress, EVM);
    // Oldest first, as the SDK documents: the new code carried the rate the affiliate had until then.
    expect(info!.codes).toEqual([
      { code: firstCode, rebate_rate: 0.15, ...figures },
      { code: newCode, rebate_rate: 0.1, ...figures },
    ]);
    // The SDK's deprecated root fields, and so its tracking link, are its oldest code's (codes[0]).
    expect(info).toMatchObject({ id: created.id, user_identifier: affiliate.address, code: firstCode, rebate_rate: 0.15 });
    expect(await Fuul.generateTrackingLink(APP, affiliate.checksumAddress, EVM)).toBe(`${APP}?af=${firstCode}`);
  });

  it('counts the click of a visitor who opens the link, and refers its wallet when it connects, signed', async () => {
    browser.visit(await Fuul.generateTrackingLink(APP, affiliate.checksumAddress, EVM));
    await page.sendPageview();
    const clicked = await pollUntil(async () => (await codes()).find((code) => code.code === firstCode && code.clicks > 0) && codes(), {
      timeoutMs: 20_000,
      what: 'the click counted',
    });
    expect(clicked.map(({ code, clicks }) => ({ code, clicks }))).toEqual([
      { code: firstCode, clicks: 1 },
      { code: newCode, clicks: 0 },
    ]);

    visitor = await newWallet();
    const message = `Connect ${visitor.checksumAddress} to Example`;
    await page.identifyUser({ identifier: visitor.checksumAddress, identifierType: EVM, signature: await visitor.sign(message), message });
    const referrer = await pollUntil(
      async () => {
        const answer = await Fuul.getUserReferrer({ user_identifier: visitor.address, user_identifier_type: EVM });
        return answer.referrer_identifier !== null && answer;
      },
      { timeoutMs: 20_000, what: 'the visitor referred' },
    );
    expect(referrer).toMatchObject({
      user_identifier: visitor.address,
      referrer_identifier: affiliate.address,
      referrer_user_rebate_rate: 0.15,
    });
    expect(await Fuul.getReferralStatus({ user_identifier: visitor.address, user_identifier_type: EVM })).toMatchObject({
      referred: true,
      code: firstCode,
      referrer_identifier: affiliate.address,
    });
    expect((await codes()).map(({ code, uses, clicks, total_users }) => ({ code, uses, clicks, total_users }))).toEqual([
      { code: firstCode, uses: 1, clicks: 1, total_users: 1 },
      { code: newCode, uses: 0, clicks: 0, total_users: 0 },
    ]);
  });

  it('stores the visitor’s custom event once, and counts it for its wallet: the visitor joins an event_count audience', async () => {
    const depositors = await createSegment(stack, project, {
      condition: { metric: 'event_count', event_name: 'deposit', window_days: 7, op: 'gte', value: 1 },
    });
    const trackingId = browser.trackingId;
    await page.sendEvent('deposit', { dedup_id: `deposit-${trackingId}`, amount: '10' });
    const listed = await pollUntil(
      async () => {
        const response = await stack.api.get(`/api/v1/projects/${project.id}/events?name=deposit&tracking_id=${trackingId}`, {
          key: project.keys.readOnly,
        });
        return response.body.results?.[0]?.processed_at && response.body;
      },
      { timeoutMs: 20_000, what: 'the custom event processed' },
    );
    expect(listed.total_results).toBe(1);
    expect(listed.results[0]).toMatchObject({ name: 'deposit', tracking_id: trackingId, args: { amount: '10' } });
    // sendEvent names no user: the event is the wallet's that the visitor's tracking id was linked to by identifyUser.
    const audiences = await pollUntil(
      async () => {
        const answer = await Fuul.getUserAudiences({ user_identifier: visitor.address, user_identifier_type: EVM });
        return answer.results.length > 0 && answer.results;
      },
      { timeoutMs: 20_000, what: 'the visitor in the depositors’ audience' },
    );
    expect(audiences.map((audience) => audience.id)).toEqual([depositors.id]);
    // The same event from another tab is refused by its dedup_id.
    browser.storage.delete('fuul.sent_deposit');
    expect(await refusal(page.sendEvent('deposit', { dedup_id: `deposit-${trackingId}`, amount: '10' }))).toMatchObject({
      status: 409,
      body: { code: 'DUPLICATE_EVENT' },
    });
  });

  it('generates invite codes for the affiliate, counts their uses exactly, lifts a limit and ends a referral', async () => {
    const generated = await Fuul.generateReferralCodes({ user_identifier: affiliate.address, user_identifier_type: EVM, quantity: 2, max_uses: 1 });
    expect(generated).toHaveLength(2);
    const [invite] = generated.map(({ code }) => code) as [string];
    const listed = await Fuul.listUserReferralCodes({ user_identifier: affiliate.checksumAddress, user_identifier_type: EVM });
    expect(listed).toMatchObject({ count: 2, next_page: null });
    expect(listed.results.map(({ code, uses, max_uses }) => ({ code, uses, max_uses })).sort((a, b) => a.code.localeCompare(b.code))).toEqual(
      generated.map(({ code }) => ({ code, uses: 0, max_uses: 1 })).sort((a, b) => a.code.localeCompare(b.code)),
    );
    expect(await Fuul.getReferralCode({ code: invite })).toEqual({ available: true });

    const use = async (user: TestWallet) => {
      const message = `I am using referral code ${invite}`;
      return Fuul.useReferralCode({
        code: invite.toLowerCase(),
        user_identifier: user.checksumAddress,
        user_identifier_type: EVM,
        signature: await user.sign(message),
        signature_message: message,
      });
    };
    const status = (user: TestWallet) => Fuul.getReferralStatus({ user_identifier: user.address, user_identifier_type: EVM });
    const inviteRow = async () =>
      (await Fuul.listUserReferralCodes({ user_identifier: affiliate.address, user_identifier_type: EVM })).results.find(
        (row) => row.code === invite,
      )!;

    const [first, second] = [await newWallet(), await newWallet()];
    await use(first);
    expect(await status(first)).toMatchObject({ referred: true, code: invite, referrer_identifier: affiliate.address });
    expect(await inviteRow()).toMatchObject({ uses: 1, remaining_uses: 0 });
    expect(await Fuul.getReferralCode({ code: invite })).toEqual({ available: false });
    expect(await Fuul.isAffiliateCodeAvailable(invite)).toBe(false);
    expect(await refusal(use(second))).toMatchObject({ status: 409, body: { code: 'CODE_EXHAUSTED' } });

    await Fuul.updateReferralCode({ code: invite, max_uses: 2 });
    expect(await Fuul.getReferralCode({ code: invite })).toEqual({ available: true });
    await use(second);
    expect(await inviteRow()).toMatchObject({ uses: 2, remaining_uses: 0, total_users: 2 });

    const message = `I am deleting referral for user ${first.address} from code ${invite}`;
    await Fuul.deleteReferral({
      code: invite,
      user_identifier: first.checksumAddress,
      user_identifier_type: EVM,
      referrer_identifier: affiliate.checksumAddress,
      referrer_identifier_type: EVM,
      signature: await first.sign(message),
      signature_message: message,
    });
    expect(await status(first)).toEqual({ referred: false });
    // The use stays counted; the user no longer stands among those it referred.
    const ended = await inviteRow();
    expect(ended).toMatchObject({ uses: 2, total_users: 1 });
    expect(ended.used_by.map((user) => user.identifier)).toEqual([second.address]);
  });

  it('pays the referred visitor its rebate out of the affiliate’s reward, to the unit', async () => {
    const currency = await createCurrency(stack, project, { decimals: 6 });
    // 10% of 1,234,567 is 123,456.7: the affiliate's reward is 123,456; the visitor's 15% of it is
    // 18,518.4, so 18,518 rebated and 104,938 kept (the two add up to the reward).
    await putTerms(stack, project, 'trade', { currency_id: currency.id, affiliate: { bps: 1_000 } });
    const conversion = conversionBody({ user: evmUser(visitor.address), reward_base: '1234567' });
    const sent = await stack.api.post('/api/v1/conversions', { key: project.keys.service, body: conversion });
    expect(sent.status).toBe(202);
    await settled(stack, project, conversion.id);

    const movements = async (wallet: TestWallet) =>
      (await Fuul.getUserPayoutMovements({ user_identifier: wallet.address, identifier_type: EVM })).results.map((movement) => ({
        is_referrer: movement.is_referrer,
        conversion_id: movement.conversion_id,
        total_amount: movement.total_amount,
        currency_address: movement.currency_address,
        // Ours beside the SDK's fields: whether the movement is a rebate.
        rebate: (movement as typeof movement & { rebate: boolean }).rebate,
      }));
    expect(await movements(visitor)).toEqual([
      { is_referrer: false, conversion_id: conversion.id, total_amount: '18518', currency_address: currency.address, rebate: true },
    ]);
    expect(await movements(affiliate)).toEqual([
      { is_referrer: true, conversion_id: conversion.id, total_amount: '104938', currency_address: currency.address, rebate: false },
    ]);
    // The affiliate's code earned what it kept: 0.104938 of the 6-decimal currency.
    const earned = await pollUntil(async () => (await codes()).find((code) => code.code === firstCode && code.total_earnings > 0), {
      timeoutMs: 20_000,
      what: 'the code’s earnings',
    });
    expect(earned.total_earnings).toBe(0.104938);
  });
});
