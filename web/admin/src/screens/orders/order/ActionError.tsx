import { ApiError } from '../../../api/client';
import { strings } from '../../../strings';
import { FormError } from '../../../ui/Field';

/** A failed Process or Cancel; a 409 means the order moved on, and the screen shows it as it is now. */
export function ActionError(props: { error: unknown }) {
  if (!props.error) return null;
  if (props.error instanceof ApiError && props.error.status === 409)
    return (
      <div className="alert alert-error" role="alert">
        <p>{strings.order.theOrderBelowIs(props.error.message)}</p>
      </div>
    );
  return <FormError error={props.error} />;
}
