import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import type { ApiBody } from '../../api/client';
import { countryOptions } from '../../ui/countries';
import { ErrorMessage } from '../../ui/states';
import { isSessionRefusal, usePortal } from '../session';
import { FieldError, fieldErrors } from '../../ui/field-errors';
import { type FieldSpec, FORMS, formBody, type FormType } from './tax-form-fields';

type TaxBody = ApiBody<'/api/v1/projects/{projectId}/affiliate-portal/tax-info', 'post'>;

const NOT_CERTIFIED = 'Tick the statement above to sign the form: it cannot be sent without it.';

/**
 * Two steps: which form fits you, then its fields and the perjury statement it is signed under.
 * The API checks everything; its problems are shown next to each field. After sending, every input
 * is cleared: the tax id is never shown again; `onSent` says what was sent.
 */
export function TaxWizard({ onSent, onCancel }: { onSent(message: string): void; onCancel?: () => void }) {
  const { projectId, api } = usePortal();
  const queryClient = useQueryClient();
  const [type, setType] = useState<FormType | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [certified, setCertified] = useState(false);
  const [uncertified, setUncertified] = useState(false);
  const certification = useRef<HTMLInputElement>(null);
  const submit = useMutation({
    // formBody builds the shape of the chosen form type; the API validates every field.
    mutationFn: (body: Record<string, unknown>) =>
      api('post', '/api/v1/projects/{projectId}/affiliate-portal/tax-info', { path: { projectId }, body: body as TaxBody }),
    onSuccess: async () => {
      const title = FORMS[type!].title;
      setValues({});
      setCertified(false);
      setType(null);
      onSent(`Your ${title} was sent for review.`);
      await queryClient.invalidateQueries({ queryKey: ['portal', projectId] });
    },
  });
  const errors = fieldErrors(submit.error);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!type) return;
    if (!certified) {
      setUncertified(true);
      certification.current?.focus();
      return;
    }
    submit.mutate(formBody(type, values));
  };

  if (!type) {
    return (
      <section aria-labelledby="wizard-heading">
        <h2 id="wizard-heading">Send your tax form</h2>
        <fieldset>
          <legend>Step 1 of 2: which form fits you?</legend>
          {(Object.keys(FORMS) as FormType[]).map((form) => (
            <p key={form}>
              <button
                type="button"
                onClick={() => {
                  submit.reset();
                  setType(form);
                }}
              >
                {FORMS[form].title}
              </button>{' '}
              {FORMS[form].who}
            </p>
          ))}
        </fieldset>
        {onCancel ? (
          <p>
            <button type="button" onClick={onCancel}>
              Keep the form I sent
            </button>
          </p>
        ) : null}
      </section>
    );
  }
  return (
    <section aria-labelledby="wizard-heading">
      <h2 id="wizard-heading">Step 2 of 2: your {FORMS[type].title}</h2>
      <form className="stack" onSubmit={onSubmit} noValidate>
        {FORMS[type].fields.map((field) => (
          <Field
            key={field.name}
            spec={field}
            value={values[field.name] ?? ''}
            error={errors[field.name]}
            onChange={(value) => setValues((current) => ({ ...current, [field.name]: value }))}
          />
        ))}
        <div className="checkbox-field certification">
          <input
            ref={certification}
            type="checkbox"
            id="tax-certification"
            checked={certified}
            aria-invalid={uncertified && !certified}
            aria-describedby="tax-certification-error"
            onChange={(event) => {
              setCertified(event.target.checked);
              setUncertified(false);
            }}
          />{' '}
          <label htmlFor="tax-certification" className="inline-label">
            {FORMS[type].certification}
          </label>
          <FieldError id="tax-certification-error" message={uncertified && !certified ? NOT_CERTIFIED : undefined} />
        </div>
        <div className="actions">
          <button type="button" onClick={() => setType(null)}>
            Back
          </button>{' '}
          <button type="submit" disabled={submit.isPending}>
            {submit.isPending ? 'Sending…' : `Send ${FORMS[type].title}`}
          </button>
        </div>
      </form>
      {/* An expired session is said above the page, with the way to sign in again and send it then. */}
      {submit.isError && !isSessionRefusal(submit.error) ? <ErrorMessage error={submit.error} showDetails={false} title="Not sent" /> : null}
    </section>
  );
}

/** The countries once, by name: every country select shares them. */
let countries: ReturnType<typeof countryOptions> | undefined;

export function Field({
  spec,
  value,
  error,
  onChange,
}: {
  spec: FieldSpec;
  value: string;
  error: string | undefined;
  onChange(value: string): void;
}) {
  const id = `tax-${spec.name.replace(/\./g, '-')}`;
  const describedBy = [spec.help ? `${id}-help` : null, `${id}-error`].filter(Boolean).join(' ');
  const common = { id, name: spec.name, 'aria-invalid': Boolean(error), 'aria-describedby': describedBy };
  const label = `${spec.label}${spec.optional ? ' (optional)' : ''}`;
  if (spec.kind === 'checkbox') {
    return (
      <div className="checkbox-field">
        <input type="checkbox" {...common} checked={value === 'true'} onChange={(e) => onChange(String(e.target.checked))} />{' '}
        <label htmlFor={id} className="inline-label">
          {label}
        </label>
        <FieldError id={`${id}-error`} message={error} />
      </div>
    );
  }
  const options = spec.kind === 'country' ? (countries ??= countryOptions()) : spec.options;
  return (
    <div>
      <label htmlFor={id}>{label}</label>
      {spec.help ? (
        <p className="help" id={`${id}-help`}>
          {spec.help}
        </p>
      ) : null}
      {options ? (
        <select {...common} value={value} autoComplete={spec.autoComplete} onChange={(e) => onChange(e.target.value)}>
          <option value="">Choose…</option>
          {options.map(([option, text]) => (
            <option key={option} value={option}>
              {text}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...common}
          type={spec.kind === 'secret' ? 'password' : 'text'}
          // Dates are typed as the API and the screens write them; the browser's date picker would show the reader's locale (mm/dd/yyyy).
          {...(spec.kind === 'date' ? { pattern: '\\d{4}-\\d{2}-\\d{2}', maxLength: 10 } : {})}
          value={value}
          autoComplete={spec.kind === 'secret' ? 'off' : (spec.autoComplete ?? 'off')}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}
