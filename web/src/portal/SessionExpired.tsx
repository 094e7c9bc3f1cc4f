import { useQueryClient } from '@tanstack/react-query';
import { ErrorMessage } from '../ui/states';
import { usePortalSession } from './session';
import { useWalletSignIn } from './wallet-sign-in';

/**
 * Said above the page once the API refused the session (it lasts minutes): sign in again with the
 * same wallet, here, and the page stays as it was, a half-filled form included; what failed is read again.
 */
export function SessionExpired({ address }: { address: string }) {
  const { expired } = usePortalSession();
  const queryClient = useQueryClient();
  const again = useWalletSignIn(address);
  if (!expired) return null;
  return (
    <div className="state state-warning" role="alert" data-testid="session-expired">
      <p>
        Your session has expired. Sign in again with your wallet to go on; what you filled in stays here.{' '}
        <button
          type="button"
          className="primary"
          disabled={again.isPending}
          onClick={() => again.mutate(undefined, { onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['portal'] }) })}
        >
          {again.isPending ? 'Waiting for your wallet…' : 'Sign in again'}
        </button>
      </p>
      {again.isError ? <ErrorMessage error={again.error} title="Could not sign in" /> : null}
    </div>
  );
}
