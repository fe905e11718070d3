import { type ReactNode, useEffect, useRef } from 'react';

/** A modal dialog (the native `<dialog>`: focus trap, Escape and the backdrop come with it). */
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
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog
      ref={ref}
      className={`dialog ${props.wide ? 'dialog-wide' : ''}`}
      onClose={props.onClose}
      aria-labelledby="dialog-title"
    >
      {props.open ? (
        <>
          <header className="dialog-head">
            <h2 id="dialog-title">{props.title}</h2>
            <button type="button" className="btn btn-ghost" onClick={props.onClose} aria-label="Close">
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
