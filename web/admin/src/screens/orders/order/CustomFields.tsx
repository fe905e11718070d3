import type { Invoice } from '../../../api/queries/invoices';
import { strings } from '../../../strings';
import { Card } from '../../../ui/Page';

export function CustomFields(props: { order: Invoice }) {
  const answers = Object.entries(props.order.customFields);
  return (
    <Card title={strings.common.customFields}>
      {answers.length === 0 ? (
        <p className="muted">{strings.order.theBuyerAnsweredNo}</p>
      ) : (
        <dl className="orders-facts">
          {answers.map(([name, value]) => (
            <div key={name} style={{ display: 'contents' }}>
              <dt>{name}</dt>
              <dd>{typeof value === 'boolean' ? (value ? strings.order.yes : strings.order.no) : String(value)}</dd>
            </div>
          ))}
        </dl>
      )}
    </Card>
  );
}
