import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import type { ApiBody } from '../../api/client';
import { ErrorMessage } from '../../ui/states';
import { usePortal } from '../session';
import { FieldError, fieldErrors } from '../../ui/field-errors';
import { type FieldSpec, FORMS, formBody, type FormType } from './tax-form-fields';

type TaxBody = ApiBody<'/api/v1/projects/{projectId}/affiliate-portal/tax-info', 'post'>;

/**
 * Two steps: which form fits you, then its fields. The API checks everything; its problems are
 * shown next to each field. After sending, every input is cleared: the tax id is never shown again.
 */
export function TaxWizard() {
  const { projectId, api } = usePortal();
  const queryClient = useQueryClient();
  const [type, setType] = useState<FormType | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [sent, setSent] = useState<string | null>(null);
  const submit = useMutation({
    // formBody builds the shape of the chosen form type; the API validates every field.
    mutationFn: (body: Record<string, unknown>) =>
      api('post', '/api/v1/projects/{projectId}/affiliate-portal/tax-info', { path: { projectId }, body: body as TaxBody }),
    onSuccess: async () => {
      setSent(`Your ${FORMS[type!].title} was sent for review.`);
      setValues({});
      setType(null);
      await queryClient.invalidateQueries({ queryKey: ['portal', projectId] });
    },
  });
  const errors = fieldErrors(submit.error);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (type) submit.mutate(formBody(type, values));
  };

  if (!type) {
    return (
      <section aria-labelledby="wizard-heading">
        <h2 id="wizard-heading">Send your tax form</h2>
        {sent ? (
          <p role="status" className="state">
            {sent}
          </p>
        ) : null}
        <fieldset>
          <legend>Step 1 of 2: which form fits you?</legend>
          {(Object.keys(FORMS) as FormType[]).map((form) => (
            <p key={form}>
              <button
                type="button"
                onClick={() => {
                  submit.reset();
                  setSent(null);
                  setType(form);
                }}
              >
                {FORMS[form].title}
              </button>{' '}
              {FORMS[form].who}
            </p>
          ))}
        </fieldset>
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
        <div className="actions">
          <button type="button" onClick={() => setType(null)}>
            Back
          </button>{' '}
          <button type="submit" disabled={submit.isPending}>
            {submit.isPending ? 'Sending…' : `Send ${FORMS[type].title}`}
          </button>
        </div>
      </form>
      {submit.isError ? <ErrorMessage error={submit.error} showDetails={false} title="Not sent" /> : null}
    </section>
  );
}

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
  return (
    <div>
      <label htmlFor={id}>{label}</label>
      {spec.help ? (
        <p className="help" id={`${id}-help`}>
          {spec.help}
        </p>
      ) : null}
      {spec.kind === 'select' ? (
        <select {...common} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">Choose…</option>
          {spec.options!.map(([option, text]) => (
            <option key={option} value={option}>
              {text}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...common}
          type={spec.kind === 'date' ? 'date' : spec.kind === 'secret' ? 'password' : 'text'}
          value={value}
          autoComplete={spec.kind === 'secret' ? 'off' : (spec.autoComplete ?? 'off')}
          onChange={(e) => onChange(e.target.value)}
        />
      )}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}
