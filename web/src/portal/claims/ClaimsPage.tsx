import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, type ApiResult } from '../../api/client';
import { formatCount, formatCurrencyAmount, formatDateTime, formatTokenAmount } from '../../ui/format';
import { Empty, ErrorMessage, LoadError, Loading } from '../../ui/states';
import { usePortal } from '../session';
import { injectedWallet, sendTransaction, switchChain, waitForReceipt, WalletError } from '../wallet';
import { claimCalldata, isRedeemable, type Voucher } from './claim-transaction';
import { Earnings } from './Earnings';

type ClaimCheck = ApiResult<'/api/v1/claim-checks', 'get'>['results'][number];

const STATUS_WORDS: Record<ClaimCheck['status'], string> = {
  open: 'Open: still growing',
  unclaimed: 'Ready to claim',
  claimed: 'Claimed',
  expired: 'Expired',
};
/** A check the program has not set up claims for yet (ClaimCheck.close_unavailable), in the program's words: nothing for the affiliate to do. */
const NOT_OPEN_YET = 'Claims in this currency are not open yet; your earnings are kept.';

/** A close refused for the program's set-up (a check listed before it was known) says the same, never the claim service's configuration. */
function closeError(error: unknown): unknown {
  return error instanceof ApiError && (error.code === 'CHAIN_NOT_CONFIGURED' || error.code === 'CLAIM_SETTINGS_MISSING')
    ? new Error(NOT_OPEN_YET)
    : error;
}

const REASON_WORDS: Record<ClaimCheck['reason'], string> = {
  affiliate_payout: 'Affiliate earnings',
  end_user_payout: 'Your own rewards',
  agency_payout: 'Agency earnings',
};

/**
 * Claims: the wallet's earnings per currency (available and pending, with the date each pending
 * amount becomes available), then its claim checks. An open check is closed into a signed voucher, then the wallet
 * redeems its vouchers by sending one `claim` transaction to the program's ClaimManager contract.
 * A check the tax gate holds back shows the API's restriction message instead.
 */
export function ClaimsPage() {
  const { projectId, address, api } = usePortal();
  const queryClient = useQueryClient();
  const checks = useQuery({
    queryKey: ['portal', projectId, address, 'claim-checks'],
    // Payments, the tax gate and the chain change checks elsewhere: always current when the page opens.
    staleTime: 0,
    queryFn: () => api('get', '/api/v1/claim-checks', { query: { project_id: projectId, page_size: 100 } }),
  });
  const vouchers = useQuery({
    queryKey: ['portal', projectId, address, 'vouchers'],
    staleTime: 0,
    queryFn: () => api('post', '/api/v1/claim-checks/claim', { query: { project_id: projectId }, body: {} }),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['portal', projectId, address] });
  const close = useMutation({
    mutationFn: (ids: string[]) => api('post', '/api/v1/claim-checks/close', { query: { project_id: projectId }, body: { claim_check_ids: ids } }),
    onSuccess: () => void refresh(),
  });
  // An open check holding nothing (a refund took it back; any debt left is carried on it) cannot be closed: the API refuses it.
  // Nor can one whose currency the program has not set up claims for: it is not offered.
  const openIds = (checks.data?.results ?? [])
    .filter((check) => check.status === 'open' && !check.restriction_message && !check.close_unavailable && BigInt(check.amount) > 0n)
    .map((check) => check.id);

  return (
    <>
      <h1>Claims</h1>
      <Earnings />
      <h2>Your claim checks</h2>
      {checks.isPending ? <Loading /> : null}
      {checks.isError ? <LoadError query={checks} /> : null}
      {checks.data && checks.data.results.length === 0 ? <Empty>No claim checks yet: they appear when you earn rewards.</Empty> : null}
      {checks.data && checks.data.results.length > 0 ? (
        <div className="table-scroll" role="region" aria-label="Claim checks" tabIndex={0}>
          <table>
            <caption className="visually-hidden">Your claim checks, newest first</caption>
            <thead>
              <tr>
                <th scope="col">For</th>
                <th scope="col" className="number">
                  Amount
                </th>
                <th scope="col">Status</th>
                <th scope="col">Since</th>
              </tr>
            </thead>
            <tbody>
              {checks.data.results.map((check) => (
                <tr key={check.id} data-testid="claim-check">
                  <td>{REASON_WORDS[check.reason]}</td>
                  <td className="number" title={`${check.amount} base units`}>
                    {formatCurrencyAmount(check)}
                  </td>
                  <td className="wrap">
                    {check.close_unavailable ? (
                      <span role="note">{NOT_OPEN_YET}</span>
                    ) : check.status === 'open' && BigInt(check.amount) === 0n ? (
                      <span role="note">Open, with nothing to claim: a refund took back what it held; your next earnings pay any debt first</span>
                    ) : (
                      STATUS_WORDS[check.status]
                    )}
                    {check.restriction_message ? (
                      <span className="restriction" role="note">
                        {' '}
                        — on hold: {check.restriction_message}
                      </span>
                    ) : null}
                  </td>
                  <td>{formatDateTime(check.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {openIds.length > 0 ? (
        <p>
          <button type="button" onClick={() => close.mutate(openIds)} disabled={close.isPending}>
            {close.isPending ? 'Closing…' : `Close ${openIds.length === 1 ? 'the open check' : `${openIds.length} open checks`} to claim`}
          </button>
        </p>
      ) : null}
      {close.isError ? <ErrorMessage error={closeError(close.error)} title="Not closed" /> : null}
      {close.data?.some((voucher) => voucher.restriction_message) ? (
        <p className="state" role="status">
          Some checks are on hold: {close.data.find((voucher) => voucher.restriction_message)!.restriction_message}
        </p>
      ) : null}

      <h2>Ready to claim on chain</h2>
      {vouchers.isPending ? <Loading /> : null}
      {vouchers.isError ? <LoadError query={vouchers} /> : null}
      {vouchers.data ? (
        <Redeem
          vouchers={vouchers.data}
          checks={checks.data?.results ?? []}
          address={address}
          mayClose={openIds.length > 0 || !checks.data?.results.some((check) => check.close_unavailable)}
          onClaimed={() => void refresh()}
        />
      ) : null}
    </>
  );
}

/** `mayClose`: whether "close an open check first" is advice the affiliate can follow (false when what is open cannot close yet). */
function Redeem({
  vouchers,
  checks,
  address,
  mayClose,
  onClaimed,
}: {
  vouchers: Voucher[];
  checks: ClaimCheck[];
  address: string;
  mayClose: boolean;
  onClaimed(): void;
}) {
  // A voucher is its claim check's (same id): the check names the currency the voucher only gives the address of.
  const amountOf = (voucher: Voucher) => {
    const check = checks.find((one) => one.id === voucher.id);
    return check
      ? formatCurrencyAmount({ ...check, amount: voucher.amount })
      : formatTokenAmount(voucher.amount, { name: null, decimals: null, address: voucher.currency });
  };
  const redeemable = vouchers.filter((voucher) => isRedeemable(voucher));
  const held = vouchers.filter((voucher) => voucher.restriction_message);
  // One transaction per ClaimManager: each voucher names the contract it was signed for, on its chain.
  const first = redeemable[0];
  const batch = redeemable.filter((voucher) => voucher.chain_id === first?.chain_id && voucher.claim_manager === first?.claim_manager);
  const claim = useMutation({
    mutationFn: async () => {
      const wallet = injectedWallet();
      // The chain and the contract are the voucher's, as the API signed it: a wallet on another chain is asked to switch.
      await switchChain(wallet, first!.chain_id);
      const hash = await sendTransaction(wallet, { from: address, to: first!.claim_manager!, data: claimCalldata(batch), chainId: first!.chain_id });
      const receipt = await waitForReceipt(wallet, hash);
      if (receipt.status !== '0x1')
        throw new WalletError(`The claim transaction ${hash} failed on chain; nothing was paid. Close the checks again and retry.`);
      return hash;
    },
    onSuccess: onClaimed,
  });
  return (
    <>
      {held.length > 0 ? (
        <ul className="state" aria-label="Vouchers on hold">
          {held.map((voucher) => (
            <li key={voucher.id}>{voucher.restriction_message}</li>
          ))}
        </ul>
      ) : null}
      {batch.length === 0 && !claim.isSuccess ? <Empty>Nothing to claim right now.{mayClose ? ' Close an open check first.' : ''}</Empty> : null}
      {batch.length > 0 ? (
        <form
          className="stack"
          onSubmit={(event) => {
            event.preventDefault();
            claim.mutate();
          }}
        >
          <p data-testid="claimable">
            {batch.length === 1 ? 'One voucher' : formatCount(batch.length, 'voucher')} to claim: {batch.map(amountOf).join(', ')}, until{' '}
            {formatDateTime(new Date(batch[0]!.deadline! * 1000).toISOString())}.
          </p>
          <p>
            Sent to the program’s ClaimManager contract{' '}
            <span className="identifier" data-testid="claim-manager">
              {first!.claim_manager}
            </span>{' '}
            on chain {first!.chain_id}.
          </p>
          <div>
            <button type="submit" disabled={claim.isPending}>
              {claim.isPending ? 'Confirm in your wallet…' : 'Claim with wallet'}
            </button>
          </div>
        </form>
      ) : null}
      {claim.isError ? <ErrorMessage error={claim.error} title="Not claimed" /> : null}
      {claim.isSuccess ? (
        <p className="state" role="status" data-testid="claimed">
          Claimed. Transaction <span className="identifier">{claim.data}</span>.
        </p>
      ) : null}
    </>
  );
}
