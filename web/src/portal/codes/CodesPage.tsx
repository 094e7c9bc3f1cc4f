import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router-dom';
import { CONVERSION_RATE_HELP, formatConversionRate, formatDateTime, formatDecimal } from '../../ui/format';
import { Empty, ErrorMessage, LoadError, Loading } from '../../ui/states';
import { useOwnAffiliate } from '../membership';
import { usePortal } from '../session';
import { FieldError, fieldErrors } from '../../ui/field-errors';
import { formatRebateRate, RebateRateDialog } from '../../ui/RebateRateDialog';
import { numeric, ScrollTable } from '../../ui/ScrollTable';

type OwnCode = NonNullable<ReturnType<typeof useOwnAffiliate>['data']>['codes'][number];

/** The API's rate (0 to 0.2, two decimals) in whole percent: 0.07 is 7. */

/**
 * Referral codes: the affiliate's codes with their uses, clicks, conversion rate, rebate rate (which
 * the affiliate sets) and links, and a form to add one. Whether
 * the wallet is an affiliate is the affiliate record's answer; each link is the program's link
 * template with the code, as the API makes it (null while the program has no link).
 */
export function CodesPage() {
  const { projectId } = usePortal();
  const own = useOwnAffiliate();
  const affiliate = own.data ?? null;
  const [editing, setEditing] = useState<OwnCode | null>(null);
  return (
    <>
      <h1>Referral codes</h1>
      {own.isPending ? <Loading /> : null}
      {own.isError ? <LoadError query={own} /> : null}
      {own.isSuccess && !affiliate ? (
        <Empty>
          You are not an affiliate of this program yet. <Link to={`/portal/${projectId}/apply`}>Apply first</Link>; your codes appear here once you
          are accepted.
        </Empty>
      ) : null}
      {affiliate ? (
        <>
          {affiliate.codes.length > 0 && affiliate.codes.every((code) => code.link === null) ? (
            <p className="state" data-testid="no-link">
              This program has no referral link yet: the program has not set its address. Your codes work already; a link to share appears here once
              it has.
            </p>
          ) : null}
          {affiliate.codes.length === 0 ? (
            <Empty>No codes yet. Add one below.</Empty>
          ) : (
            <ScrollTable
              label="Referral codes"
              caption="Your referral codes"
              columns={[
                'Code',
                numeric('People referred'),
                numeric('Clicks'),
                { key: 'conversion_rate', label: <span title={CONVERSION_RATE_HELP}>Conversion rate</span>, numeric: true },
                'Rebate rate',
                'Added',
                'Link',
              ]}
            >
              {affiliate.codes.map((code) => (
                <tr key={code.code}>
                  <td className="identifier">{code.code}</td>
                  <td className="number">{formatDecimal(code.uses)}</td>
                  <td className="number" data-testid={`clicks-${code.code}`}>
                    {code.clicks === null ? '—' : formatDecimal(code.clicks)}
                  </td>
                  <td className="number" data-testid={`conversion-rate-${code.code}`}>
                    {formatConversionRate(code.uses, code.clicks)}
                  </td>
                  <td>
                    <span data-testid={`rebate-rate-${code.code}`}>{formatRebateRate(code.rebate_rate)}</span>{' '}
                    <button type="button" onClick={() => setEditing(code)}>
                      Edit rate…<span className="visually-hidden"> ({code.code})</span>
                    </button>
                  </td>
                  <td>{formatDateTime(code.created_at)}</td>
                  <td>{code.link ? <CopyLink code={code.code} link={code.link} /> : <span className="subtle">No link yet</span>}</td>
                </tr>
              ))}
            </ScrollTable>
          )}
          {affiliate.codes.length > 0 ? (
            <p className="help">
              Clicks: visitors who opened your link, once per visitor, code and day. Conversion rate: people referred with the code ÷ its clicks, over
              all time; — when there are no clicks. Rebate rate: the share of your reward that goes back to each person you referred with the code,
              from their next conversions on.
            </p>
          ) : null}
          {editing ? <OwnCodeRateDialog code={editing} onClose={() => setEditing(null)} /> : null}
          <AddCode />
        </>
      ) : null}
    </>
  );
}

function CopyLink({ code, link }: { code: string; link: string }) {
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link);
      setCopied('copied');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <span className="copy-link">
      <code className="identifier">{link}</code>{' '}
      <button type="button" onClick={() => void copy()} aria-label={`Copy link for ${code}`}>
        Copy link
      </button>
      <span role="status" className="subtle">
        {copied === 'copied' ? 'Copied.' : copied === 'failed' ? 'Copying is blocked here: select the link and copy it.' : ''}
      </span>
    </span>
  );
}

/** The affiliate sets (or clears) one of its codes' rebate rate, in whole percent as the dashboard's dialog takes it. */
function OwnCodeRateDialog({ code, onClose }: { code: OwnCode; onClose(): void }) {
  const { projectId, api } = usePortal();
  const queryClient = useQueryClient();
  return (
    <RebateRateDialog
      code={code.code}
      rate={code.rebate_rate}
      description="The share of your reward that goes to each person you referred with this code, from their next conversions on. Empty: none."
      saveRate={(rate) =>
        api('patch', '/api/v1/projects/{projectId}/affiliate-portal/codes/{code}', {
          path: { projectId, code: code.code },
          body: { rebate_rate: rate },
        })
      }
      onSaved={() => queryClient.invalidateQueries({ queryKey: ['portal', projectId] })}
      onClose={onClose}
    />
  );
}

function AddCode() {
  const { projectId, api } = usePortal();
  const queryClient = useQueryClient();
  const [code, setCode] = useState('');
  const add = useMutation({
    mutationFn: () => api('post', '/api/v1/projects/{projectId}/affiliate-portal/codes', { path: { projectId }, body: { code: code.trim() } }),
    onSuccess: async () => {
      setCode('');
      await queryClient.invalidateQueries({ queryKey: ['portal', projectId] });
    },
  });
  const errors = fieldErrors(add.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <section aria-labelledby="add-code-heading">
      <h2 id="add-code-heading">Add a code</h2>
      <form className="stack" onSubmit={submit} noValidate>
        <label htmlFor="new-code">New code</label>
        <p className="help" id="new-code-help">
          3 to 32 letters, digits, _ or -. Up to 20 codes.
        </p>
        <input
          id="new-code"
          value={code}
          onChange={(e) => setCode(e.target.value)}
          aria-invalid={Boolean(errors.code)}
          aria-describedby="new-code-help new-code-error"
        />
        <FieldError id="new-code-error" message={errors.code} />
        <div>
          <button type="submit" disabled={add.isPending}>
            {add.isPending ? 'Adding…' : 'Add code'}
          </button>
        </div>
      </form>
      {add.isError ? <ErrorMessage error={add.error} showDetails={false} title="Not added" /> : null}
    </section>
  );
}
