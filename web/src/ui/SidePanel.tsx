import { type ReactNode, type RefObject, useEffect, useRef } from 'react';

/**
 * A record opened from a list, beside the list: fixed to the window's right edge (the whole width on
 * a phone) with its own scroll, so it is in view wherever the row was. Not modal (the list stays
 * usable, another row opens in its place); focus moves into it when it opens, and Escape or its
 * Close gives focus back to the row that opened it (`returnFocusTo`). Labelled by a heading of its
 * content (`labelledBy`). Give it a `key` per record, so each record opens with focus in it.
 */
export function SidePanel({
  id,
  labelledBy,
  onClose,
  returnFocusTo,
  children,
}: {
  id?: string;
  labelledBy: string;
  onClose(): void;
  returnFocusTo?: RefObject<HTMLElement | null>;
  children: ReactNode;
}) {
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    panel.current?.focus();
  }, []);
  const close = () => {
    onClose();
    returnFocusTo?.current?.focus();
  };
  return (
    <div
      id={id}
      ref={panel}
      role="dialog"
      aria-labelledby={labelledBy}
      tabIndex={-1}
      className="side-panel"
      onKeyDown={(event) => {
        // A dialog opened inside the panel (a confirmation) takes its own Escape.
        if (event.key !== 'Escape' || (event.target as Element).closest('dialog')) return;
        event.stopPropagation();
        close();
      }}
    >
      <div className="side-panel-close">
        <button type="button" onClick={close}>
          Close
        </button>
      </div>
      {children}
    </div>
  );
}
