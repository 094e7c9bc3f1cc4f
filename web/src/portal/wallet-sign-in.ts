import { useMutation } from '@tanstack/react-query';
import { createApiClient } from '../api/client';
import { usePortalSession } from './session';
import { injectedWallet, personalSign, requestAccount, WalletError } from './wallet';

/**
 * Sign-in with Ethereum (EIP-4361): the gateway words the message with a one-time nonce, the wallet
 * signs it (personal_sign), the gateway checks the signature and answers a session token. With
 * `sameAddress` (signing in again after the session expired) the wallet must still be on that
 * account: the page's state, a half-filled form among it, belongs to that wallet.
 */
export function useWalletSignIn(sameAddress?: string) {
  const { signIn } = usePortalSession();
  return useMutation({
    mutationFn: async () => {
      const wallet = injectedWallet();
      const account = await requestAccount(wallet);
      if (sameAddress && account.toLowerCase() !== sameAddress)
        throw new WalletError(
          `Your wallet is now on account ${account}; you were signed in as ${sameAddress}. Switch back to it in your wallet, or sign out.`,
        );
      const api = createApiClient(() => null);
      const { message } = await api('post', '/api/v1/auth/nonce', { body: { address: account } });
      const signature = await personalSign(wallet, account, message);
      const verified = await api('post', '/api/v1/auth/verify', { body: { message, signature } });
      return { token: verified.token, address: verified.address, expiresAt: verified.expires_at };
    },
    onSuccess: signIn,
  });
}
