import { AddressInUseError, CodeInUseError, Fuul, InvalidSignatureError, UserIdentifierType } from '@fuul/sdk';
import { useStackWithProject } from '../helpers/fixtures';
import { newWallet, type TestWallet } from '../helpers/wallet';
import { creationMessage, initFuulSdk } from '../helpers/fuul-sdk';

/**
 * The published @fuul/sdk (7.41.0), unmodified, against our gateway: its affiliate code calls and its
 * referrer lookup, with its own paths, bodies and error classes. The SDK keeps one configuration per
 * process, so this file initialises it once, with a read_only key (any role of the project will do).
 */
describe('the @fuul/sdk against the gateway', () => {
  const { stack, project } = useStackWithProject();
  beforeAll(() => initFuulSdk(stack, project.keys.readOnly));

  const createCode = async (wallet: TestWallet, code: string, signedCode = code) =>
    Fuul.createAffiliateCode({
      userIdentifier: wallet.checksumAddress,
      identifierType: UserIdentifierType.EvmAddress,
      code,
      signature: await wallet.sign(creationMessage(signedCode)),
    });

  it('creates an affiliate code with the wallet’s signature, and reads it back with getAffiliateCode', async () => {
    const wallet = await newWallet();
    const created = await createCode(wallet, 'SdkAlice');
    expect(created).toEqual({
      id: expect.any(String),
      name: 'SdkAlice',
      code: 'SdkAlice',
      user_identifier: wallet.address,
      user_identifier_type: 'evm_address',
      region: null,
      updated_at: stack.clock.now().toISOString(),
    });
    const affiliate = await Fuul.getAffiliateCode(wallet.checksumAddress, UserIdentifierType.EvmAddress);
    expect(affiliate).toMatchObject({
      id: created.id,
      name: 'SdkAlice',
      user_identifier: wallet.address,
      code: 'SdkAlice',
      uses: 0,
      created_at: stack.clock.now().toISOString(),
      codes: [{ code: 'SdkAlice', uses: 0, created_at: stack.clock.now().toISOString() }],
      current_tier: null,
    });
  });

  it('answers null from getAffiliateCode for a wallet that is no affiliate', async () => {
    const stranger = await newWallet();
    expect(await Fuul.getAffiliateCode(stranger.address, UserIdentifierType.EvmAddress)).toBeNull();
  });

  it('raises the SDK’s own errors: InvalidSignatureError, AddressInUseError, CodeInUseError', async () => {
    const wallet = await newWallet();
    await expect(createCode(wallet, 'SdkBob', 'SomethingElse')).rejects.toBeInstanceOf(InvalidSignatureError);
    await createCode(wallet, 'SdkBob');
    await expect(createCode(wallet, 'SdkBobTwo')).rejects.toBeInstanceOf(AddressInUseError);
    const other = await newWallet();
    await expect(createCode(other, 'sdkbob')).rejects.toBeInstanceOf(CodeInUseError);
    expect(await Fuul.getAffiliateCode(other.address, UserIdentifierType.EvmAddress)).toBeNull();
  });

  it('tells whether a code is free (nobody holds it) and available (it exists and refers), whatever its letter case', async () => {
    await createCode(await newWallet(), 'SdkCarol');
    expect(await Fuul.isAffiliateCodeFree('sdkcarol')).toBe(false);
    expect(await Fuul.isAffiliateCodeAvailable('SDKCAROL')).toBe(true);
    expect(await Fuul.isAffiliateCodeFree('sdk_nobody')).toBe(true);
    expect(await Fuul.isAffiliateCodeAvailable('sdk_nobody')).toBe(false);
    expect(await Fuul.isAffiliateCodeAvailable('no')).toBe(false);
  });

  it('reads a referred user’s referrer with getUserReferrer, and nulls for a user nobody referred', async () => {
    const affiliate = await newWallet();
    await createCode(affiliate, 'SdkDave');
    const user = await newWallet();
    expect(await Fuul.getUserReferrer({ user_identifier: user.address, user_identifier_type: UserIdentifierType.EvmAddress })).toEqual({
      user_identifier: user.address,
      referrer_identifier: null,
      referrer_name: null,
      referrer_code: null,
      referrer_codes: [],
      referred_at: null,
      referrer_user_rebate_rate: null,
    });
    const referred = await stack.api.post('/api/v1/referrals', {
      key: project.keys.service,
      body: { user_identifier: user.address, user_identifier_type: 'evm_address', code: 'sdkdave' },
    });
    expect(referred.status).toBe(201);
    expect(await Fuul.getUserReferrer({ user_identifier: user.checksumAddress, user_identifier_type: UserIdentifierType.EvmAddress })).toEqual({
      user_identifier: user.address,
      referrer_identifier: affiliate.address,
      referrer_name: 'SdkDave',
      referrer_code: 'SdkDave',
      referrer_codes: ['SdkDave'],
      referred_at: stack.clock.now().toISOString(),
      referrer_user_rebate_rate: null,
    });
  });

  it('refers a user with useReferralCode, the user signing a message that names the code', async () => {
    const affiliate = await newWallet();
    await createCode(affiliate, 'SdkErin');
    const user = await newWallet();
    const message = 'I accept the referral code sdkerin';
    const use = async (signer: TestWallet, chainId?: number) =>
      Fuul.useReferralCode({
        code: 'SdkErin',
        user_identifier: user.checksumAddress,
        user_identifier_type: UserIdentifierType.EvmAddress,
        signature: await signer.sign(message),
        signature_message: message,
        chain_id: chainId,
      });
    // Signed by another wallet: refused with the SDK's message, and nobody is referred.
    await expect(use(affiliate)).rejects.toMatchObject({ response: { status: 400, data: { message: 'invalid signature' } } });
    // Naming a chain this gateway has no RPC URL for, it could be a contract wallet's signature there: it cannot be checked.
    await expect(use(affiliate, 1)).rejects.toMatchObject({ response: { status: 422, data: { code: 'SIGNATURE_UNVERIFIABLE' } } });
    expect(
      (await Fuul.getUserReferrer({ user_identifier: user.address, user_identifier_type: UserIdentifierType.EvmAddress })).referrer_identifier,
    ).toBeNull();
    // The key's own signature needs no chain, whichever the SDK names.
    await expect(use(user, 1)).resolves.toBeUndefined();
    expect(await Fuul.getUserReferrer({ user_identifier: user.address, user_identifier_type: UserIdentifierType.EvmAddress })).toMatchObject({
      referrer_identifier: affiliate.address,
      referrer_code: 'SdkErin',
    });
  });
});
