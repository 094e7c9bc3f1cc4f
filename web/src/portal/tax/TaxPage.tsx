import { formatDateTime } from '../../ui/format';
import { ErrorMessage, Loading } from '../../ui/states';
import { FORM_NAMES, nextStep, useTaxStatus } from './tax-status';
import { TaxWizard } from './TaxWizard';

/** Tax: the wallet's status with what to do next, and the form wizard while a form may be sent. */
export function TaxPage() {
  const status = useTaxStatus();
  return (
    <>
      <h1>Tax</h1>
      {status.isPending ? <Loading /> : null}
      {status.isError ? <ErrorMessage error={status.error} /> : null}
      {status.data ? <TaxStatusCard status={status.data} /> : null}
      {status.data && nextStep(status.data).maySubmit ? <TaxWizard /> : null}
    </>
  );
}

function TaxStatusCard({ status }: { status: NonNullable<ReturnType<typeof useTaxStatus>['data']> }) {
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
