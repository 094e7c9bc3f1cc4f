/**
 * The injected EIP-1193 wallet (`window.ethereum`, as MetaMask and others provide it): the portal
 * asks it for the account, a personal_sign of the sign-in message, and to send the claim transaction.
 * The wallet holds the key; the portal never sees it.
 */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

declare global {
  interface Window {
    ethereum?: Eip1193Provider;
  }
}

/** A wallet's refusal or fault, in words a person can act on. */
export class WalletError extends Error {
  override name = 'WalletError';
}

export function injectedWallet(): Eip1193Provider {
  if (!window.ethereum) throw new WalletError('No wallet was found in this browser. Install or unlock an Ethereum wallet, then try again.');
  return window.ethereum;
}

async function ask<T>(wallet: Eip1193Provider, method: string, params?: unknown[]): Promise<T> {
  try {
    return (await wallet.request({ method, params })) as T;
  } catch (error) {
    // EIP-1193 code 4001: the person declined in the wallet.
    if ((error as { code?: number }).code === 4001) throw new WalletError('The request was declined in your wallet.');
    throw new WalletError(`Your wallet could not do this: ${(error as Error).message ?? String(error)}`);
  }
}

export async function requestAccount(wallet: Eip1193Provider): Promise<string> {
  const accounts = await ask<string[]>(wallet, 'eth_requestAccounts');
  const account = accounts[0];
  if (!account) throw new WalletError('Your wallet shared no account. Unlock it and try again.');
  return account;
}

/** EIP-191 personal_sign of a UTF-8 message: the hex of its bytes, then the account. */
export function personalSign(wallet: Eip1193Provider, account: string, message: string): Promise<string> {
  const hex = `0x${Array.from(new TextEncoder().encode(message), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
  return ask<string>(wallet, 'personal_sign', [hex, account]);
}

/**
 * Makes the wallet use `chainId` (the chain the API says a voucher is redeemed on) when it is on
 * another one: EIP-3326's wallet_switchEthereumChain. A chain the wallet does not know (4902) needs
 * the person to add it, with its RPC URL, which the portal does not know.
 */
export async function switchChain(wallet: Eip1193Provider, chainId: number): Promise<void> {
  const current = await ask<string>(wallet, 'eth_chainId');
  if (Number(current) === chainId) return;
  try {
    await wallet.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: `0x${chainId.toString(16)}` }] });
  } catch (error) {
    const code = (error as { code?: number }).code;
    if (code === 4001) throw new WalletError(`The switch to chain ${chainId} was declined in your wallet: the vouchers are redeemed there.`);
    if (code === 4902)
      throw new WalletError(
        `Your wallet does not know chain ${chainId}, where these vouchers are redeemed. Add that network to your wallet, then try again.`,
      );
    throw new WalletError(`Your wallet could not switch to chain ${chainId}: ${(error as Error).message ?? String(error)}`);
  }
}

export function sendTransaction(wallet: Eip1193Provider, transaction: { from: string; to: string; data: string; chainId: number }): Promise<string> {
  return ask<string>(wallet, 'eth_sendTransaction', [{ ...transaction, chainId: `0x${transaction.chainId.toString(16)}` }]);
}

export interface TransactionReceipt {
  status: string;
  blockNumber: string;
}

/** Polls the wallet's node for the receipt (every second, for up to two minutes). */
export async function waitForReceipt(wallet: Eip1193Provider, hash: string, timeoutMs = 120_000): Promise<TransactionReceipt> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const receipt = await ask<TransactionReceipt | null>(wallet, 'eth_getTransactionReceipt', [hash]);
    if (receipt) return receipt;
    if (Date.now() > deadline) throw new WalletError(`Transaction ${hash} was not mined within two minutes; check it in your wallet.`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
