import { type FormEvent, useState } from 'react';
import { FieldError, fieldErrors } from '../../ui/field-errors';
import { ErrorMessage } from '../../ui/states';
import { isWebhookEvent, WEBHOOK_EVENTS, type WebhookEvent } from './events';

export interface WebhookSettings {
  url: string;
  events: WebhookEvent[];
  enabled: boolean;
}

/**
 * An endpoint's URL, events (a checkbox per event of the API's enum) and whether it is enabled:
 * the form both creating and editing use. The API checks the values; its field violations show
 * at their fields (`url`, `events`, `events[2]`) and its message under the form.
 */
export function WebhookForm({
  initial,
  submitLabel,
  pendingLabel,
  pending,
  error,
  errorTitle,
  onSubmit,
}: {
  initial: { url: string; events: string[]; enabled: boolean };
  submitLabel: string;
  pendingLabel: string;
  pending: boolean;
  error: unknown;
  errorTitle: string;
  onSubmit(settings: WebhookSettings): void;
}) {
  const [url, setUrl] = useState(initial.url);
  const [events, setEvents] = useState<WebhookEvent[]>(initial.events.filter(isWebhookEvent));
  const [enabled, setEnabled] = useState(initial.enabled);
  const errors = fieldErrors(error);
  const eventsError = errors.events ?? Object.entries(errors).find(([field]) => field.startsWith('events['))?.[1];
  const toggle = (name: WebhookEvent) =>
    // Kept in the API's order, whatever order they were ticked in.
    setEvents((current) =>
      WEBHOOK_EVENTS.map((event) => event.name).filter((event) => (event === name ? !current.includes(name) : current.includes(event))),
    );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit({ url: url.trim(), events, enabled });
  };
  return (
    <form className="stack" onSubmit={submit} noValidate>
      <label htmlFor="webhook-url">Endpoint URL</label>
      <p className="help" id="webhook-url-help">
        https:// (plain http:// only to localhost while developing). Each event is POSTed here, signed with the endpoint’s secret.
      </p>
      <input
        id="webhook-url"
        type="url"
        inputMode="url"
        value={url}
        onChange={(event) => setUrl(event.target.value)}
        spellCheck={false}
        autoComplete="off"
        aria-invalid={errors.url ? true : undefined}
        aria-describedby="webhook-url-help webhook-url-error"
      />
      <FieldError id="webhook-url-error" message={errors.url} />
      <fieldset aria-describedby="webhook-events-error">
        <legend>Events</legend>
        {WEBHOOK_EVENTS.map((event) => (
          <div className="checkbox-field" key={event.name}>
            <input
              type="checkbox"
              id={`webhook-event-${event.name}`}
              checked={events.includes(event.name)}
              onChange={() => toggle(event.name)}
              aria-describedby={`webhook-event-${event.name}-when`}
            />
            <label className="inline-label" htmlFor={`webhook-event-${event.name}`}>
              <code>{event.name}</code>
            </label>
            <span className="subtle" id={`webhook-event-${event.name}-when`}>
              {event.when}
            </span>
          </div>
        ))}
        <FieldError id="webhook-events-error" message={eventsError} />
      </fieldset>
      <div className="checkbox-field">
        <input type="checkbox" id="webhook-enabled" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} />
        <label className="inline-label" htmlFor="webhook-enabled">
          Enabled (send events to this endpoint)
        </label>
      </div>
      {error ? <ErrorMessage error={error} title={errorTitle} showDetails={false} /> : null}
      <div>
        <button type="submit" disabled={pending}>
          {pending ? pendingLabel : submitLabel}
        </button>
      </div>
    </form>
  );
}
