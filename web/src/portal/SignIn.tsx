import { useMutation } from '@tanstack/react-query';
import { createApiClient } from '../api/client';
import { ErrorMessage } from '../ui/states';
import { usePortalSession } from './session';
import { injectedWallet, personalSign, requestAccount } from './wallet';

/**
 * Sign-in with Ethereum (EIP-4361): the gateway words the message with a one-time nonce, the wallet
 * signs it (personal_sign), the gateway checks the signature and answers a session token.
 */
export function SignIn() {
  const { signIn } = usePortalSession();
  const connect = useMutation({
    mutationFn: async () => {
      const wallet = injectedWallet();
      const account = await requestAccount(wallet);
      const api = createApiClient(() => null);
      const { message } = await api('post', '/api/v1/auth/nonce', { body: { address: account } });
      const signature = await personalSign(wallet, account, message);
      const verified = await api('post', '/api/v1/auth/verify', { body: { message, signature } });
      return { token: verified.token, address: verified.address, expiresAt: verified.expires_at };
    },
    onSuccess: signIn,
  });
  return (
    <main id="main" className="sign-in">
      <h1>Affiliate portal</h1>
      <p>Sign in with your Ethereum wallet. It asks you to sign a message; this costs nothing and sends no transaction.</p>
      <button type="button" className="primary" onClick={() => connect.mutate()} disabled={connect.isPending}>
        {connect.isPending ? 'Waiting for your wallet…' : 'Sign in with wallet'}
      </button>
      {connect.isError ? <ErrorMessage error={connect.error} title="Could not sign in" /> : null}
    </main>
  );
}
