import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ApiResult } from '../../api/client';
import { CONVERSION_RATE_HELP, formatConversionRate, formatDateTime, formatDecimal } from '../../ui/format';
import { formatRebateRate, RebateRateDialog } from '../../ui/RebateRateDialog';
import { numeric, ScrollTable } from '../../ui/ScrollTable';
import { Empty } from '../../ui/states';
import { useProject } from '../session';
import { AddCode } from './AddCode';
import { useCanWrite } from '../key-role';

type Code = ApiResult<'/api/v1/projects/{projectId}/affiliates/{userIdentifier}', 'get'>['codes'][number];

/** The API's rate (0 to 0.2, two decimals) in whole percent: 0.07 is 7. */

/**
 * An affiliate's codes with their uses, clicks (one per visitor and day) and user rebate rate (the
 * share of the affiliate's reward its referred users get back), which an admin can set or clear, and a form to add one.
 */
export function AffiliateCodes({ identifier, identifierType, codes }: { identifier: string; identifierType: string; codes: Code[] }) {
  const [editing, setEditing] = useState<Code | null>(null);
  const canWrite = useCanWrite();
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
            ...(canWrite ? [{ key: 'actions', label: <span className="visually-hidden">Actions</span> }] : []),
          ]}
        >
          {codes.map((code) => (
            <tr key={code.code}>
              <td>{code.code}</td>
              <td>{formatDateTime(code.created_at)}</td>
              <td className="number">{formatDecimal(code.uses)}</td>
              <td className="number">{code.clicks === null ? '—' : formatDecimal(code.clicks)}</td>
              <td className="number">{formatConversionRate(code.uses, code.clicks)}</td>
              <td>{formatRebateRate(code.rebate_rate)}</td>
              {canWrite ? (
                <td>
                  <button type="button" onClick={() => setEditing(code)}>
                    Edit rate…<span className="visually-hidden"> ({code.code})</span>
                  </button>
                </td>
              ) : null}
            </tr>
          ))}
        </ScrollTable>
      )}
      {codes.length > 0 ? <p className="help">{CONVERSION_RATE_HELP.replace('users referred', 'users referred with the code')}</p> : null}
      <AddCode identifier={identifier} identifierType={identifierType} />
      {editing ? <CodeRateDialog identifier={identifier} identifierType={identifierType} code={editing} onClose={() => setEditing(null)} /> : null}
    </section>
  );
}

function CodeRateDialog({ identifier, identifierType, code, onClose }: { identifier: string; identifierType: string; code: Code; onClose(): void }) {
  const { projectId, api } = useProject();
  const queryClient = useQueryClient();
  return (
    <RebateRateDialog
      code={code.code}
      rate={code.rebate_rate}
      description="The share of the affiliate’s reward that goes to each user it referred with this code, from their next conversions on. Empty: none."
      saveRate={(rate) =>
        api('patch', '/api/v1/projects/{projectId}/affiliates/{userIdentifier}/codes/{code}', {
          path: { projectId, userIdentifier: identifier, code: code.code },
          query: { identifier_type: identifierType },
          body: { rebate_rate: rate },
        })
      }
      onSaved={() => queryClient.invalidateQueries({ queryKey: ['affiliate', projectId, identifierType, identifier] })}
      onClose={onClose}
    />
  );
}
