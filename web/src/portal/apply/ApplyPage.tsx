import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router-dom';
import { formatDateTime } from '../../ui/format';
import { ErrorMessage, Loading } from '../../ui/states';
import { type OwnAffiliate, useOwnAffiliate } from '../membership';
import { usePortal } from '../session';
import { FieldError, fieldErrors } from '../../ui/field-errors';
import { type Application, useApplication } from './application';

const STATUS_WORDS: Record<Application['status'], string> = {
  pending: 'Your application is waiting for the program’s review.',
  on_hold: 'Your application is on hold.',
  approved: 'You are an affiliate of this program.',
  rejected: 'Your application was not accepted. You may apply again.',
};

/**
 * Membership, decided by the affiliate record (an affiliate made by an admin or through the SDK
 * never applied): an affiliate sees that it is one; a wallet that is none sees its application and
 * its decision, or the form to apply.
 */
export function ApplyPage() {
  const affiliate = useOwnAffiliate();
  const application = useApplication();
  const pending = affiliate.isPending || application.isPending;
  const error = affiliate.error ?? application.error;
  return (
    <>
      <h1>Membership</h1>
      {pending && !error ? <Loading /> : null}
      {error ? (
        <ErrorMessage
          error={error}
          onRetry={() => {
            if (affiliate.isError) void affiliate.refetch();
            if (application.isError) void application.refetch();
          }}
        />
      ) : null}
      {!pending && !error && affiliate.data ? <AffiliateStatus affiliate={affiliate.data} /> : null}
      {!pending && !error && affiliate.data === null ? (
        <>
          {application.data ? <ApplicationStatus application={application.data} /> : null}
          {application.data === null || application.data?.status === 'rejected' ? <ApplyForm /> : null}
        </>
      ) : null}
    </>
  );
}

/** The wallet is an affiliate of the program: no application to make. */
function AffiliateStatus({ affiliate }: { affiliate: OwnAffiliate }) {
  const { projectId } = usePortal();
  return (
    <section aria-labelledby="membership-heading">
      <h2 id="membership-heading">Your membership</h2>
      <p data-testid="membership-status">
        {affiliate.status === 'suspended' ? 'Your affiliate membership of this program is suspended.' : 'You are an affiliate of this program.'}
      </p>
      {affiliate.status === 'suspended' && affiliate.suspension_reason ? <p>Reason: {affiliate.suspension_reason}</p> : null}
      <dl className="facts">
        <div>
          <dt>Name</dt>
          <dd>{affiliate.name}</dd>
        </div>
        <div>
          <dt>Affiliate since</dt>
          <dd>{formatDateTime(affiliate.joined_at)}</dd>
        </div>
      </dl>
      <p>
        Next: <Link to={`/portal/${projectId}/codes`}>share your referral codes</Link> and{' '}
        <Link to={`/portal/${projectId}/tax`}>send your tax form</Link>.
      </p>
    </section>
  );
}

function ApplicationStatus({ application }: { application: Application }) {
  const { projectId } = usePortal();
  return (
    <section aria-labelledby="application-heading">
      <h2 id="application-heading">Your application</h2>
      <p data-testid="application-status">{STATUS_WORDS[application.status]}</p>
      {application.status === 'on_hold' && application.hold_note ? <p>Note from the program: {application.hold_note}</p> : null}
      {application.status === 'rejected' && application.rejection_reason ? <p>Reason: {application.rejection_reason}</p> : null}
      <dl className="facts">
        <div>
          <dt>Name</dt>
          <dd>{application.name}</dd>
        </div>
        <div>
          <dt>Applied</dt>
          <dd>{formatDateTime(application.created_at)}</dd>
        </div>
        {application.decided_at ? (
          <div>
            <dt>Decided</dt>
            <dd>{formatDateTime(application.decided_at)}</dd>
          </div>
        ) : null}
      </dl>
      {application.status === 'approved' ? (
        <p>
          Next: <Link to={`/portal/${projectId}/codes`}>share your referral codes</Link> and{' '}
          <Link to={`/portal/${projectId}/tax`}>send your tax form</Link>.
        </p>
      ) : null}
    </section>
  );
}

function ApplyForm() {
  const { projectId, api } = usePortal();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [region, setRegion] = useState('');
  const [code, setCode] = useState('');
  const [message, setMessage] = useState('');
  const apply = useMutation({
    mutationFn: () =>
      api('post', '/api/v1/projects/{projectId}/affiliate-portal/application', {
        path: { projectId },
        body: { name: name.trim(), region: region.trim() || null, code: code.trim() || null, message: message.trim() || null },
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['portal', projectId] }),
  });
  const errors = fieldErrors(apply.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    apply.mutate();
  };
  return (
    <section aria-labelledby="apply-heading">
      <h2 id="apply-heading">Apply to become an affiliate</h2>
      <form className="stack" onSubmit={submit} noValidate>
        <label htmlFor="apply-name">Your name</label>
        <input
          id="apply-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          aria-invalid={Boolean(errors.name)}
          aria-describedby="apply-name-error"
        />
        <FieldError id="apply-name-error" message={errors.name} />
        <label htmlFor="apply-region">Country code (optional)</label>
        <input
          id="apply-region"
          value={region}
          onChange={(e) => setRegion(e.target.value)}
          maxLength={2}
          aria-invalid={Boolean(errors.region)}
          aria-describedby="apply-region-error"
        />
        <FieldError id="apply-region-error" message={errors.region} />
        <label htmlFor="apply-code">Referral code you would like (optional)</label>
        <input
          id="apply-code"
          value={code}
          onChange={(e) => setCode(e.target.value)}
          aria-invalid={Boolean(errors.code)}
          aria-describedby="apply-code-error"
        />
        <FieldError id="apply-code-error" message={errors.code} />
        <label htmlFor="apply-message">Message to the program (optional)</label>
        <textarea id="apply-message" rows={3} value={message} onChange={(e) => setMessage(e.target.value)} />
        <FieldError message={errors.message} />
        <div>
          <button type="submit" disabled={apply.isPending}>
            {apply.isPending ? 'Sending…' : 'Apply'}
          </button>
        </div>
      </form>
      {apply.isError ? <ErrorMessage error={apply.error} showDetails={false} title="Not sent" /> : null}
    </section>
  );
}
