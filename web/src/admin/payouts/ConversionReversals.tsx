import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { ConfirmMutationDialog } from '../../ui/ConfirmDialog';
import { type Fact, Facts } from '../../ui/Facts';
import { FieldError, fieldErrors } from '../../ui/field-errors';
import { formatBasisPoints, formatDateTime, formatTokenAmount, formatUsd, UNKNOWN_CURRENCY } from '../../ui/format';
import { numeric, ScrollTable } from '../../ui/ScrollTable';
import { Empty, LoadError, Loading } from '../../ui/states';
import { useProject } from '../session';
import { KIND_LABELS } from './movement-kinds';
import { type ConversionWithReversals, parseSharePercent, partSources, remainingBps, type Reversal, reversalError, WHOLE_BPS } from './reversal';
import { useCanWrite } from '../key-role';

/** The query key of one conversion as GET /api/v1/conversions/{id} answers it (with its reversals). */
const conversionKey = (projectId: string, conversionId: string) => ['conversion', projectId, conversionId] as const;

/**
 * A conversion's reversals (read from GET /api/v1/conversions/{id}: the list leaves them out), each
 * with what came back from each movement and where from, and the Reverse action of a processed
 * conversion that is not reversed whole yet.
 */
export function ConversionReversals({ conversionId, status }: { conversionId: string; status: string }) {
  const { projectId, api } = useProject();
  const canWrite = useCanWrite();
  const [reversing, setReversing] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const conversion = useQuery({
    queryKey: conversionKey(projectId, conversionId),
    queryFn: ({ signal }) => api('get', '/api/v1/conversions/{conversionId}', { path: { conversionId }, signal }),
  });
  const reversals = conversion.data?.reversals ?? [];
  const remaining = remainingBps(reversals);
  return (
    <>
      <div className="page-head">
        <h4 id="reversals-title">Reversals</h4>
        {canWrite && status === 'processed' && conversion.data && remaining > 0 ? (
          <button
            type="button"
            className="danger-outline"
            onClick={() => {
              setDone(null);
              setReversing(true);
            }}
          >
            Reverse…
          </button>
        ) : null}
      </div>
      <p role="status" aria-live="polite" className={done ? 'state' : undefined}>
        {done ?? ''}
      </p>
      {conversion.isPending ? <Loading label="Loading its reversals…" /> : null}
      {conversion.isError ? <LoadError query={conversion} title="Reversals not loaded" /> : null}
      {conversion.data && reversals.length === 0 ? <Empty>Never reversed.</Empty> : null}
      {conversion.data
        ? reversals.map((reversal) => <ReversalEntry key={reversal.reversal_id} reversal={reversal} conversion={conversion.data} />)
        : null}
      {conversion.data && remaining === 0 ? <p className="help">All of it is reversed: nothing is left to take back.</p> : null}
      {reversing && conversion.data ? (
        <ReverseDialog
          conversion={conversion.data}
          remaining={remaining}
          onClose={() => setReversing(false)}
          onReversed={(reversal) => {
            setReversing(false);
            setDone(`Reversed ${formatBasisPoints(reversal.share_bps)} of the conversion.`);
          }}
        />
      ) : null}
    </>
  );
}

function ReversalEntry({ reversal, conversion }: { reversal: Reversal; conversion: ConversionWithReversals }) {
  const titleId = useId();
  // The parts name their currency by id: its name and decimals are the conversion's movements'.
  const currencyOf = (id: string) => conversion.movements.find((movement) => movement.currency.id === id)?.currency;
  const facts: Fact[] = [
    ['When', formatDateTime(reversal.created_at)],
    ['Share', formatBasisPoints(reversal.share_bps)],
    ['Reason', reversal.reason],
    ['By API key', reversal.reversed_by],
    ['Reversal id', reversal.reversal_id],
  ];
  if (reversal.volume_usd !== null) facts.push(['Volume taken out', formatUsd(reversal.volume_usd)]);
  if (reversal.revenue_usd !== null) facts.push(['Revenue taken out', formatUsd(reversal.revenue_usd)]);
  return (
    <article className="panel" aria-labelledby={titleId} data-testid="reversal">
      <h5 id={titleId}>
        {formatBasisPoints(reversal.share_bps)} reversed {formatDateTime(reversal.created_at)}
      </h5>
      <Facts facts={facts} />
      {reversal.movements.length === 0 ? (
        <Empty>Nothing came back: its payouts were declined, or the share of each rounds down to 0.</Empty>
      ) : (
        <ScrollTable
          labelledBy={titleId}
          caption="What came back from each payout, and where it came from"
          columns={['Kind', 'From', numeric('Taken back'), 'Where it came from']}
        >
          {reversal.movements.map((part) => {
            const currency = currencyOf(part.currency_id);
            const amount = (units: string) => formatTokenAmount(units, currency ?? UNKNOWN_CURRENCY);
            return (
              <tr key={`${part.kind}:${part.user_identifier_type}:${part.user_identifier}:${part.rebate}`} data-testid="reversed-part">
                <td>{part.rebate ? `${KIND_LABELS[part.kind]} (rebate)` : KIND_LABELS[part.kind]}</td>
                <td className="identifier">{part.user_identifier}</td>
                <td className="number" title={`${part.amount} base units`}>
                  {amount(part.amount)}
                </td>
                <td className="wrap">{partSources(part, amount).join('; ')}</td>
              </tr>
            );
          })}
        </ScrollTable>
      )}
    </article>
  );
}

/**
 * The confirmation of a reversal: its share in percent and its reason. The reversal_id is made once
 * when the dialog opens, so a double click or a retry after a lost answer sends the same reversal,
 * which the API takes once.
 */
function ReverseDialog({
  conversion,
  remaining,
  onClose,
  onReversed,
}: {
  conversion: ConversionWithReversals;
  remaining: number;
  onClose(): void;
  onReversed(reversal: Reversal): void;
}) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [reversalId] = useState(() => `dashboard-${crypto.randomUUID()}`);
  const [share, setShare] = useState(remaining === WHOLE_BPS ? '100' : formatBasisPoints(remaining).replace('%', ''));
  const [reason, setReason] = useState('');
  const [problems, setProblems] = useState<{ share?: string; reason?: string }>({});
  const ids = { share: useId(), shareError: useId(), reason: useId(), reasonError: useId() };
  const reverse = useMutation({
    mutationFn: async ({ bps, why }: { bps: number; why: string }) => {
      try {
        // 201 made now, 200 made before under this id (a retry): the same reversal either way, taken once.
        return await api('post', '/api/v1/conversions/{conversionId}/reverse', {
          path: { conversionId: conversion.id },
          body: { reversal_id: reversalId, reason: why, share_bps: bps },
        });
      } catch (error) {
        throw reversalError(error);
      }
    },
    // A refusal may come from a reversal made elsewhere meanwhile (the share left shrank): the list reads it again.
    onError: () => void queryClient.invalidateQueries({ queryKey: conversionKey(projectId, conversion.id) }),
    onSuccess: async (reversal) => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: conversionKey(projectId, conversion.id) }),
        queryClient.invalidateQueries({ queryKey: ['conversions', projectId] }),
        queryClient.invalidateQueries({ queryKey: ['reconciliation', projectId] }),
      ]);
      onReversed(reversal);
    },
  });
  const apiProblems = fieldErrors(reverse.error);
  const shareError = problems.share ?? apiProblems.share_bps;
  const reasonError = problems.reason ?? apiProblems.reason;
  const confirm = {
    ...reverse,
    mutate: () => {
      const parsed = parseSharePercent(share, remaining);
      const why = reason.trim();
      const found = { share: 'error' in parsed ? parsed.error : undefined, reason: why ? undefined : 'Say why: the reason is kept on the reversal.' };
      setProblems(found);
      if ('bps' in parsed && why) reverse.mutate({ bps: parsed.bps, why });
    },
  };
  const paid = conversion.movements.filter((movement) => movement.status !== 'declined');
  return (
    <ConfirmMutationDialog open title={`Reverse conversion ${conversion.id}?`} confirmLabel="Reverse" mutation={confirm} onClose={onClose}>
      <p>
        A refund or an unwound trade: the share below of every payout of the conversion is taken back, as new rows. What is still pending or in an
        open check comes back at once; what a voucher already carried becomes the user’s debt, paid first out of what they earn next. It cannot be
        undone.
      </p>
      {paid.length > 0 ? (
        <ul>
          {paid.map((movement) => (
            <li key={`${movement.kind}:${movement.user_identifier}:${movement.rebate}`}>
              {movement.rebate ? `${KIND_LABELS[movement.kind]} (rebate)` : KIND_LABELS[movement.kind]}:{' '}
              {formatTokenAmount(movement.amount, movement.currency)} to <span className="identifier">{movement.user_identifier}</span>
            </li>
          ))}
        </ul>
      ) : null}
      <label htmlFor={ids.share}>Share to reverse (%)</label>
      <input
        id={ids.share}
        inputMode="decimal"
        autoComplete="off"
        value={share}
        onChange={(event) => setShare(event.target.value)}
        aria-invalid={shareError ? true : undefined}
        aria-describedby={ids.shareError}
      />
      <FieldError id={ids.shareError} message={shareError} />
      {remaining < WHOLE_BPS ? (
        <p className="help">
          Earlier reversals took {formatBasisPoints(WHOLE_BPS - remaining)}; at most {formatBasisPoints(remaining)} is left.
        </p>
      ) : null}
      <label htmlFor={ids.reason}>Reason (kept on the reversal)</label>
      <textarea
        id={ids.reason}
        value={reason}
        maxLength={500}
        rows={3}
        required
        onChange={(event) => setReason(event.target.value)}
        aria-invalid={reasonError ? true : undefined}
        aria-describedby={ids.reasonError}
      />
      <FieldError id={ids.reasonError} message={reasonError} />
    </ConfirmMutationDialog>
  );
}
