import type { TestStack } from './stack';

/** viem ships ES-module typings; import() lets these CommonJS tests use its real signing code. */
const viemAccounts = () => import('viem/accounts');

export interface TestWallet {
  /** Lowercase, as the API answers it. */
  address: string;
  /** EIP-55 checksummed, as wallets show it. */
  checksumAddress: string;
  /** A real EIP-191 personal signature by this wallet's private key. */
  sign(message: string): Promise<string>;
}

export async function newWallet(): Promise<TestWallet> {
  const { generatePrivateKey, privateKeyToAccount } = await viemAccounts();
  const account = privateKeyToAccount(generatePrivateKey());
  return {
    address: account.address.toLowerCase(),
    checksumAddress: account.address,
    sign: (message) => account.signMessage({ message }),
  };
}

/** The whole sign-in: nonce, signature, verify. Returns the session token. */
export async function signIn(stack: TestStack, wallet: TestWallet): Promise<string> {
  return (await signInSession(stack, wallet)).token;
}

export async function signInSession(stack: TestStack, wallet: TestWallet): Promise<{ token: string; expiresAt: Date }> {
  const started = await stack.api.post('/api/v1/auth/nonce', { body: { address: wallet.checksumAddress } });
  if (started.status !== 200) throw new Error(`nonce failed: ${started.status} ${started.text}`);
  const signature = await wallet.sign(started.body.message);
  const verified = await stack.api.post('/api/v1/auth/verify', { body: { message: started.body.message, signature } });
  if (verified.status !== 200) throw new Error(`verify failed: ${verified.status} ${verified.text}`);
  return { token: verified.body.token, expiresAt: new Date(verified.body.expires_at) };
}
