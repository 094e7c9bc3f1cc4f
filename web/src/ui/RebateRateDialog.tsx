import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { ConfirmMutationDialog } from './ConfirmDialog';
import { FieldError, fieldErrors } from './field-errors';

/** A code's user rebate rate as the API keeps it (a fraction, 0 to 0.2) in whole percent, as both apps show and take it. */
const toPercent = (rate: number) => Math.round(rate * 100);

/** A code's rebate rate in a table cell: "5%", or "none". */
export function formatRebateRate(rate: number | null): string {
  return rate === null ? 'none' : `${toPercent(rate)}%`;
}

/**
 * Sets (or clears) one code's user rebate rate: the dashboard's for any affiliate, the portal's for
 * the signed-in affiliate's own codes. The caller says whose reward it is and how the rate is saved.
 */
export function RebateRateDialog({
  code,
  rate,
  description,
  saveRate,
  onSaved,
  onClose,
}: {
  code: string;
  rate: number | null;
  description: string;
  saveRate(rate: number | null): Promise<unknown>;
  onSaved(): Promise<void>;
  onClose(): void;
}) {
  const [percent, setPercent] = useState(rate === null ? '' : String(toPercent(rate)));
  const ids = { percent: useId(), percentError: useId() };
  const save = useMutation({
    // Whole percent to the API's fraction: 7 / 100 is the same number as 0.07.
    mutationFn: () => saveRate(percent.trim() === '' ? null : Number(percent) / 100),
    onSuccess: async () => {
      onClose();
      await onSaved();
    },
  });
  const percentError = fieldErrors(save.error).rebate_rate;
  return (
    <ConfirmMutationDialog open title={`Rebate rate of ${code}`} confirmLabel="Save the rate" mutation={save} onClose={onClose}>
      <p>{description}</p>
      <label htmlFor={ids.percent}>Rebate rate (whole percent, 0 to 20)</label>
      <input
        id={ids.percent}
        type="number"
        min={0}
        max={20}
        step={1}
        value={percent}
        onChange={(event) => setPercent(event.target.value)}
        aria-invalid={percentError ? true : undefined}
        aria-describedby={percentError ? ids.percentError : undefined}
      />
      <FieldError id={ids.percentError} message={percentError} />
    </ConfirmMutationDialog>
  );
}
