import { type ReactNode, useEffect, useRef } from 'react';
import { strings } from '../strings';

/**
 * A modal dialog: the native `<dialog>` (focus kept inside, Escape closes it), closed too by a
 * click on the backdrop, and opened with the focus on its first field.
 */
export function Dialog(props: {
  open: boolean;
  onClose: () => void;
  title: string;
  children: ReactNode;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) {
      dialog.showModal();
      dialog.querySelector<HTMLElement>('.dialog-body :is(input, select, textarea):not([disabled])')?.focus();
    }
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard closes it with Escape (native dialog)
    <dialog
      ref={ref}
      className={`dialog ${props.wide ? 'dialog-wide' : ''}`}
      onClose={props.onClose}
      // A click on the backdrop lands on the <dialog> itself; one inside lands on its content.
      onClick={(event) => {
        if (event.target === event.currentTarget) props.onClose();
      }}
      aria-labelledby="dialog-title"
    >
      {props.open ? (
        <>
          <header className="dialog-head">
            <h2 id="dialog-title">{props.title}</h2>
            <button type="button" className="btn btn-ghost" onClick={props.onClose} aria-label={strings.common.close}>
              ✕
            </button>
          </header>
          <div className="dialog-body">{props.children}</div>
        </>
      ) : null}
    </dialog>
  );
}

/** A button that asks before it acts (deletes, cancels, revocations). */
export function ConfirmButton(props: {
  label: string;
  question: string;
  onConfirm: () => void;
  danger?: boolean;
  disabled?: boolean;
  className?: string;
}) {
  return (
    <button
      type="button"
      className={`btn ${props.danger ? 'btn-danger' : ''} ${props.className ?? ''}`}
      disabled={props.disabled}
      onClick={() => {
        if (window.confirm(props.question)) props.onConfirm();
      }}
    >
      {props.label}
    </button>
  );
}
