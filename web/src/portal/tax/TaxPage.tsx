import { useState } from 'react';
import { formatDateTime } from '../../ui/format';
import { ErrorMessage, Loading } from '../../ui/states';
import { FORM_NAMES, nextStep, type TaxStatus, useTaxStatus } from './tax-status';
import { TaxWizard } from './TaxWizard';

/**
 * Tax: the wallet's status with what to do next, and the form wizard while a form is due. A form
 * sent for review shows its status, not the wizard again: a corrected form is sent on request.
 */
export function TaxPage() {
  const status = useTaxStatus();
  const [sent, setSent] = useState<string | null>(null);
  const [correcting, setCorrecting] = useState(false);
  const step = status.data ? nextStep(status.data) : null;
  const writing = correcting || (!sent && status.data?.status !== 'submitted');
  return (
    <>
      <h1>Tax</h1>
      {status.isPending ? <Loading /> : null}
      {status.isError ? <ErrorMessage error={status.error} /> : null}
      {sent ? (
        <p role="status" className="state">
          {sent}
        </p>
      ) : null}
      {status.data ? <TaxStatusCard status={status.data} /> : null}
      {step?.maySubmit && writing ? (
        <TaxWizard
          onSent={(message) => {
            setSent(message);
            setCorrecting(false);
          }}
          onCancel={status.data?.status === 'submitted' ? () => setCorrecting(false) : undefined}
        />
      ) : null}
      {step?.maySubmit && !writing ? (
        <p>
          <button
            type="button"
            onClick={() => {
              setSent(null);
              setCorrecting(true);
            }}
          >
            Send a corrected form
          </button>
        </p>
      ) : null}
    </>
  );
}

function TaxStatusCard({ status }: { status: TaxStatus }) {
  const step = nextStep(status);
  return (
    <section aria-labelledby="tax-status-heading" className="state" data-testid="tax-status">
      <h2 id="tax-status-heading">Status</h2>
      <p>{step.summary}</p>
      <p>
        <strong>Next:</strong> {step.next}
      </p>
      {status.submitted_at ? (
        <p className="subtle">
          {status.form_type ? FORM_NAMES[status.form_type] : 'Form'} sent {formatDateTime(status.submitted_at)}
          {status.approved_at ? `, approved ${formatDateTime(status.approved_at)}` : ''}.
        </p>
      ) : null}
    </section>
  );
}
