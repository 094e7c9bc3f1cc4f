import { useEffect } from 'react';
import { ErrorMessage } from '../ui/states';
import { portalDocumentTitle } from './page-title';
import { useWalletSignIn } from './wallet-sign-in';

/** The portal's door: sign in with the browser's wallet. */
export function SignIn() {
  const connect = useWalletSignIn();
  useEffect(() => {
    document.title = portalDocumentTitle('Sign in');
  }, []);
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
