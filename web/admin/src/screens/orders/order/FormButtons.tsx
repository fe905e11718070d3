import { strings } from '../../../strings';
/** The foot of an order dialog's form: its submit button (saying what runs while it runs) and Close. */
export function FormButtons(props: {
  label: string;
  pendingLabel: string;
  pending: boolean;
  onClose: () => void;
  /** An action that gives money back is drawn as one. */
  danger?: boolean;
  disabled?: boolean;
}) {
  return (
    <div className="row">
      <button
        type="submit"
        className={props.danger ? 'btn btn-danger' : 'btn btn-primary'}
        disabled={props.pending || props.disabled}
      >
        {props.pending ? props.pendingLabel : props.label}
      </button>
      <button type="button" className="btn btn-ghost" onClick={props.onClose}>
        {strings.common.close}
      </button>
    </div>
  );
}
