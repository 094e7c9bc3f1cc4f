import { useEffect, useId, useRef, useState } from 'react';

/**
 * A secret the API shows once (an API key, a webhook signing secret), with a copy button and the
 * warning that it will not be shown again. The secret lives only in the state of the screen that
 * received it: never in the query cache, a mutation's data or storage, so it is gone once the admin
 * moves on.
 */
export function OneTimeSecret({ what, secret, doneLabel, onDone }: { what: string; secret: string; doneLabel: string; onDone(): void }) {
  const id = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');
  // Focus moves to the notice when it appears, so a screen reader reads it and the keyboard starts here.
  useEffect(() => headingRef.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('copied');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <section className="one-time-secret" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} ref={headingRef} tabIndex={-1}>
        Copy the {what} now
      </h2>
      <p>
        <strong>You will not see it again.</strong> It is not stored anywhere you can read it back: neither the API nor this page can show it later.
        Keep it in your secret store before you leave this page.
      </p>
      <label htmlFor={`${id}-value`}>{what[0]!.toUpperCase() + what.slice(1)}</label>
      <div className="copy-field">
        <input
          id={`${id}-value`}
          className="identifier"
          readOnly
          value={secret}
          spellCheck={false}
          autoComplete="off"
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p role="status" className="subtle">
        {copied === 'copied' ? 'Copied to the clipboard.' : copied === 'failed' ? 'Copying is blocked here: select the text and copy it.' : ''}
      </p>
      <button type="button" onClick={onDone}>
        {doneLabel}
      </button>
    </section>
  );
}
