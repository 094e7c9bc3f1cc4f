import { createServer, type Server, type Socket } from 'node:net';
import { Fuul, InvalidSignatureError, UserIdentifierType } from '@fuul/sdk';
import type { Address } from 'viem' with { 'resolution-mode': 'import' };
import { requireWalletProof, WalletSignatures } from '../../gateway/auth/wallet-signatures';
import { newSolanaWallet, newStellarWallet } from '../helpers/ed25519-wallet';
import { type HttpEndpoint, startChain, type TestAccount, type TestChain } from '../helpers/evm';
import { startStackWithProject, type TestProject } from '../helpers/fixtures';
import type { TestStack } from '../helpers/stack';
import { creationMessage, initFuulSdk } from '../helpers/fuul-sdk';

/** A chain id no test configures. */
const UNCONFIGURED_CHAIN = 8453;
/** A configured chain whose RPC URL refuses connections (a port freed before the stack starts). */
const DOWN_CHAIN = 7;

/** A loopback port that was free a moment ago and nobody listens on now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
/** The SDK's UserIdentifierType has no Stellar member; the API takes the type as a string. */
const STELLAR = 'stellar_address' as UserIdentifierType;

/**
 * Signatures of every kind of wallet through the published @fuul/sdk and wallet sign-in: a smart
 * contract account (contracts/test/TestSmartWallet.sol, EIP-1271, deployed on an in-process chain
 * the gateway reads over HTTP JSON-RPC as CHAIN_RPC_URLS), Solana and Stellar keys (ed25519); and
 * the answers when a signature cannot be checked (422) or its chain does not answer (503), never a 5xx.
 */
describe('wallet proofs: contract wallets (EIP-1271) and ed25519 keys', () => {
  let chain: TestChain;
  let endpoint: HttpEndpoint;
  let stack: TestStack;
  let project: TestProject;
  let owner: TestAccount;
  let stranger: TestAccount;
  const wallets: Address[] = [];

  beforeAll(async () => {
    chain = await startChain({ accounts: 3 });
    endpoint = await chain.serveHttp();
    [, owner, stranger] = chain.accounts as [TestAccount, TestAccount, TestAccount];
    for (let index = 0; index < 4; index += 1) wallets.push((await chain.deploy('TestSmartWallet', [owner.address])).address);
    ({ stack, project } = await startStackWithProject({
      gatewayEnv: {
        CHAIN_RPC_URLS: `${chain.chainId}=${endpoint.url},${DOWN_CHAIN}=http://127.0.0.1:${await closedPort()}`,
        CHAIN_RPC_TIMEOUT_MS: '2000',
        SIWE_CHAIN_ID: String(chain.chainId),
      },
    }));
    initFuulSdk(stack, project.keys.readOnly);
  });
  afterAll(async () => {
    await stack?.stop();
    await chain?.stop();
  });

  const ownerSigns = (message: string) => owner.account.signMessage({ message });

  describe('a contract wallet (EIP-1271) on a configured chain', () => {
    it('creates its affiliate code through the SDK with its owner’s signature, on account_chain_id or without it', async () => {
      const [first, second] = wallets as [Address, Address];
      const created = await Fuul.createAffiliateCode({
        userIdentifier: first,
        identifierType: UserIdentifierType.EvmAddress,
        code: 'SafeAlice',
        signature: await ownerSigns(creationMessage('SafeAlice')),
        accountChainId: chain.chainId,
      });
      expect(created).toMatchObject({ code: 'SafeAlice', user_identifier: first.toLowerCase(), user_identifier_type: 'evm_address' });
      expect(await Fuul.getAffiliateCode(first, UserIdentifierType.EvmAddress)).toMatchObject({ id: created.id, code: 'SafeAlice' });

      // Without account_chain_id, the configured chains are asked.
      await Fuul.createAffiliateCode({
        userIdentifier: second,
        identifierType: UserIdentifierType.EvmAddress,
        code: 'SafeBob',
        signature: await ownerSigns(creationMessage('SafeBob')),
      });
      expect(await Fuul.getAffiliateCode(second, UserIdentifierType.EvmAddress)).toMatchObject({ code: 'SafeBob' });
    });

    it('refuses a signature the wallet does not accept (another key’s) with the SDK’s InvalidSignatureError', async () => {
      const wallet = wallets[2]!;
      await expect(
        Fuul.createAffiliateCode({
          userIdentifier: wallet,
          identifierType: UserIdentifierType.EvmAddress,
          code: 'SafeMallory',
          signature: await stranger.account.signMessage({ message: creationMessage('SafeMallory') }),
          accountChainId: chain.chainId,
        }),
      ).rejects.toBeInstanceOf(InvalidSignatureError);
      expect(await Fuul.getAffiliateCode(wallet, UserIdentifierType.EvmAddress)).toBeNull();
    });

    it('uses a referral code with the wallet’s signature (useReferralCode, chain_id)', async () => {
      const [affiliate, user] = [wallets[0]!, wallets[3]!];
      const message = 'I accept the referral code SafeAlice';
      await Fuul.useReferralCode({
        code: 'SafeAlice',
        user_identifier: user,
        user_identifier_type: UserIdentifierType.EvmAddress,
        signature: await ownerSigns(message),
        signature_message: message,
        chain_id: chain.chainId,
      });
      expect(await Fuul.getUserReferrer({ user_identifier: user, user_identifier_type: UserIdentifierType.EvmAddress })).toMatchObject({
        referrer_identifier: affiliate.toLowerCase(),
        referrer_code: 'SafeAlice',
      });
    });

    it('signs in with SIWE through the wallet’s EIP-1271, and refuses another key’s signature with 401', async () => {
      const wallet = wallets[2]!;
      const start = () => stack.api.post('/api/v1/auth/nonce', { body: { address: wallet } });
      const verify = (message: string, signature: string) => stack.api.post('/api/v1/auth/verify', { body: { message, signature } });

      const refused = (await start()).body.message as string;
      expect(await verify(refused, await stranger.account.signMessage({ message: refused }))).toMatchObject({
        status: 401,
        body: { code: 'SIWE_SIGNATURE_INVALID' },
      });

      const issued = (await start()).body.message as string;
      expect(issued).toContain(`Chain ID: ${chain.chainId}`);
      const signedIn = await verify(issued, await ownerSigns(issued));
      expect(signedIn).toMatchObject({ status: 200, body: { token: expect.any(String), address: wallet.toLowerCase() } });
    });
  });

  describe('a signature that cannot be checked here', () => {
    it('answers 422 SIGNATURE_UNVERIFIABLE, naming the chain, for a contract wallet on a chain with no RPC URL', async () => {
      const wallet = wallets[3]!;
      const response = await stack.api.post('/api/v1/affiliates', {
        key: project.keys.readOnly,
        body: {
          address: wallet,
          identifier_type: 'evm_address',
          code: 'SafeNowhere',
          signature: await ownerSigns(creationMessage('SafeNowhere')),
          account_chain_id: UNCONFIGURED_CHAIN,
        },
      });
      expect(response.status).toBe(422);
      expect(response.body).toEqual({
        status: 422,
        code: 'SIGNATURE_UNVERIFIABLE',
        message: expect.stringContaining(`chain ${UNCONFIGURED_CHAIN} is not configured (CHAIN_RPC_URLS)`),
        details: [],
      });
      // The same wallet on its own chain is fine.
      const created = await stack.api.post('/api/v1/affiliates', {
        key: project.keys.readOnly,
        body: {
          address: wallet,
          code: 'SafeNowhere',
          signature: await ownerSigns(creationMessage('SafeNowhere')),
          account_chain_id: chain.chainId,
        },
      });
      expect(created.status).toBe(201);
    });

    it('answers 503 CHAIN_UNAVAILABLE (standard body, Retry-After), never a 500, when the wallet’s chain refuses connections', async () => {
      const response = await stack.api.post('/api/v1/affiliates', {
        key: project.keys.readOnly,
        body: { address: wallets[3]!, code: 'SafeDown', signature: await ownerSigns(creationMessage('SafeDown')), account_chain_id: DOWN_CHAIN },
      });
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ status: 503, code: 'CHAIN_UNAVAILABLE', message: expect.stringContaining(`chain ${DOWN_CHAIN}`), details: [] });
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await Fuul.getAffiliateCode(wallets[3]!, UserIdentifierType.EvmAddress)).toMatchObject({ code: 'SafeNowhere' });
    });

    it('gives up on a chain that accepts the connection and never answers after CHAIN_RPC_TIMEOUT_MS: 503, not a hung request', async () => {
      const held = new Set<Socket>();
      const silent: Server = createServer((socket) => held.add(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = silent.address() as { port: number };
        const signatures = new WalletSignatures('{code}', { rpcUrls: new Map([[DOWN_CHAIN, `http://127.0.0.1:${port}`]]), timeoutMs: 200 });
        const message = 'hello';
        const proof = { identifier: wallets[0]!, identifierType: 'evm_address', message, signature: await ownerSigns(message), chainId: DOWN_CHAIN };
        await expect(requireWalletProof(signatures, proof)).rejects.toMatchObject({ status: 503, code: 'CHAIN_UNAVAILABLE' });
        expect(held.size).toBe(1);
      } finally {
        for (const socket of held) socket.destroy();
        await new Promise((resolve) => silent.close(resolve));
      }
    });
  });

  describe('ed25519 wallets', () => {
    it('creates a Solana wallet’s affiliate code through the SDK (base58 signature, signature_public_key), and refuses another key’s', async () => {
      const wallet = newSolanaWallet();
      const create = (code: string, signature: string, signaturePublicKey?: string) =>
        Fuul.createAffiliateCode({
          userIdentifier: wallet.address,
          identifierType: UserIdentifierType.SolanaAddress,
          code,
          signature,
          signaturePublicKey,
        });
      await expect(create('SolMallory', newSolanaWallet().sign(creationMessage('SolMallory')))).rejects.toBeInstanceOf(InvalidSignatureError);
      await expect(create('SolMallory', wallet.sign(creationMessage('SolMallory')), newSolanaWallet().address)).rejects.toBeInstanceOf(
        InvalidSignatureError,
      );

      const created = await create('SolAlice', wallet.sign(creationMessage('SolAlice')), wallet.address);
      expect(created).toMatchObject({ code: 'SolAlice', user_identifier: wallet.address, user_identifier_type: 'solana_address' });
      expect(await Fuul.getAffiliateCode(wallet.address, UserIdentifierType.SolanaAddress)).toMatchObject({ code: 'SolAlice' });

      // A Solana user takes the code with its signature (base64 this time).
      const user = newSolanaWallet();
      const message = 'I accept the referral code SolAlice';
      await Fuul.useReferralCode({
        code: 'SolAlice',
        user_identifier: user.address,
        user_identifier_type: UserIdentifierType.SolanaAddress,
        signature: user.sign(message, 'base64'),
        signature_message: message,
      });
      expect(await Fuul.getUserReferrer({ user_identifier: user.address, user_identifier_type: UserIdentifierType.SolanaAddress })).toMatchObject({
        referrer_identifier: wallet.address,
        referrer_code: 'SolAlice',
      });
    });

    it('creates a Stellar account’s affiliate code through the SDK (SEP-53 signature, its G… key as signature_public_key)', async () => {
      const wallet = newStellarWallet();
      const create = (code: string, signature: string) =>
        Fuul.createAffiliateCode({ userIdentifier: wallet.address, identifierType: STELLAR, code, signature, signaturePublicKey: wallet.address });
      await expect(create('XlmMallory', newStellarWallet().sign(creationMessage('XlmMallory')))).rejects.toBeInstanceOf(InvalidSignatureError);
      const created = await create('XlmAlice', wallet.sign(creationMessage('XlmAlice')));
      expect(created).toMatchObject({ code: 'XlmAlice', user_identifier: wallet.address, user_identifier_type: 'stellar_address' });
      expect(await Fuul.getAffiliateCode(wallet.address, STELLAR)).toMatchObject({ code: 'XlmAlice' });
    });

    it('answers 422 for a wallet type whose signatures are not checked here (sui_address)', async () => {
      const response = await stack.api.post('/api/v1/affiliates', {
        key: project.keys.readOnly,
        body: { address: `0x${'ab'.repeat(32)}`, identifier_type: 'sui_address', code: 'SuiAlice', signature: 'AAAA' },
      });
      expect(response).toMatchObject({ status: 422, body: { code: 'SIGNATURE_UNVERIFIABLE', message: expect.stringContaining('sui_address') } });
    });
  });
});
