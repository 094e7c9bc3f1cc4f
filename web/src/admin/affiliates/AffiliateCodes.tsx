import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { ApiResult } from '../../api/client';
import { ConfirmMutationDialog } from '../../ui/ConfirmDialog';
import { FieldError, fieldErrors } from '../../ui/field-errors';
import { CONVERSION_RATE_HELP, formatConversionRate, formatDateTime } from '../../ui/format';
import { numeric, ScrollTable } from '../../ui/ScrollTable';
import { Empty } from '../../ui/states';
import { useProject } from '../session';

type Code = ApiResult<'/api/v1/projects/{projectId}/affiliates/{userIdentifier}', 'get'>['codes'][number];

/** The API's rate (0 to 0.2, two decimals) in whole percent: 0.07 is 7. */
const toPercent = (rate: number) => Math.round(rate * 100);

/**
 * An affiliate's codes with their uses, clicks (one per visitor and day) and user rebate rate (the
 * share of the affiliate's reward its referred users get back), which an admin can set or clear.
 */
export function AffiliateCodes({ identifier, identifierType, codes }: { identifier: string; identifierType: string; codes: Code[] }) {
  const [editing, setEditing] = useState<Code | null>(null);
  return (
    <section aria-labelledby="codes-title">
      <h2 id="codes-title">Codes</h2>
      {codes.length === 0 ? (
        <Empty>Holds no code.</Empty>
      ) : (
        <ScrollTable
          labelledBy="codes-title"
          caption="The affiliate’s codes, oldest first"
          columns={[
            'Code',
            'Created',
            numeric('Uses'),
            numeric('Clicks'),
            { key: 'conversion_rate', label: <span title={CONVERSION_RATE_HELP}>Conversion rate</span>, numeric: true },
            'Rebate rate',
            { key: 'actions', label: <span className="visually-hidden">Actions</span> },
          ]}
        >
          {codes.map((code) => (
            <tr key={code.code}>
              <td>{code.code}</td>
              <td>{formatDateTime(code.created_at)}</td>
              <td className="number">{code.uses.toLocaleString('en-US')}</td>
              <td className="number">{code.clicks === null ? '—' : code.clicks.toLocaleString('en-US')}</td>
              <td className="number">{formatConversionRate(code.uses, code.clicks)}</td>
              <td>{code.rebate_rate === null ? 'none' : `${toPercent(code.rebate_rate)}%`}</td>
              <td>
                <button type="button" onClick={() => setEditing(code)}>
                  Edit rate…<span className="visually-hidden"> ({code.code})</span>
                </button>
              </td>
            </tr>
          ))}
        </ScrollTable>
      )}
      {codes.length > 0 ? <p className="help">{CONVERSION_RATE_HELP.replace('users referred', 'users referred with the code')}</p> : null}
      {editing ? <RebateRateDialog identifier={identifier} identifierType={identifierType} code={editing} onClose={() => setEditing(null)} /> : null}
    </section>
  );
}

function RebateRateDialog({
  identifier,
  identifierType,
  code,
  onClose,
}: {
  identifier: string;
  identifierType: string;
  code: Code;
  onClose(): void;
}) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  const [percent, setPercent] = useState(code.rebate_rate === null ? '' : String(toPercent(code.rebate_rate)));
  const ids = { percent: useId(), percentError: useId() };
  const save = useMutation({
    mutationFn: () =>
      api('patch', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/codes/{code}', {
        path: { projectId, userIdentifier: identifier, code: code.code },
        query: { identifier_type: identifierType },
        // Whole percent to the API's fraction: 7 / 100 is the same number as 0.07.
        body: { rebate_rate: percent.trim() === '' ? null : Number(percent) / 100 },
      }),
    onSuccess: async () => {
      onClose();
      await queryClient.invalidateQueries({ queryKey: ['affiliate', projectId, identifierType, identifier] });
    },
  });
  const percentError = fieldErrors(save.error).rebate_rate;
  return (
    <ConfirmMutationDialog open title={`Rebate rate of ${code.code}`} confirmLabel="Save the rate" mutation={save} onClose={onClose}>
      <p>The share of the affiliate’s reward that goes to each user it referred with this code, from their next conversions on. Empty: none.</p>
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
