import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router-dom';
import { formatDateTime } from '../../ui/format';
import { Empty, ErrorMessage, Loading } from '../../ui/states';
import { useOwnAffiliate } from '../membership';
import { usePortal } from '../session';
import { FieldError, fieldErrors } from '../../ui/field-errors';
import { numeric, ScrollTable } from '../../ui/ScrollTable';

/**
 * Referral codes: the affiliate's codes with their uses and links, and a form to add one. Whether
 * the wallet is an affiliate is the affiliate record's answer; each link is the program's link
 * template with the code, as the API makes it (null while the program has no link).
 */
export function CodesPage() {
  const { projectId } = usePortal();
  const own = useOwnAffiliate();
  const affiliate = own.data ?? null;
  return (
    <>
      <h1>Referral codes</h1>
      {own.isPending ? <Loading /> : null}
      {own.isError ? <ErrorMessage error={own.error} /> : null}
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
            <ScrollTable label="Referral codes" caption="Your referral codes" columns={['Code', numeric('People referred'), 'Added', 'Link']}>
              {affiliate.codes.map((code) => (
                <tr key={code.code}>
                  <td className="identifier">{code.code}</td>
                  <td className="number">{code.uses.toLocaleString('en-US')}</td>
                  <td>{formatDateTime(code.created_at)}</td>
                  <td>{code.link ? <CopyLink code={code.code} link={code.link} /> : <span className="subtle">No link yet</span>}</td>
                </tr>
              ))}
            </ScrollTable>
          )}
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
