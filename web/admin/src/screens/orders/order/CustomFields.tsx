import type { Invoice } from '../../../api/queries/invoices';
import { Card } from '../../../ui/Page';

export function CustomFields(props: { order: Invoice }) {
  const answers = Object.entries(props.order.customFields);
  return (
    <Card title="Custom fields">
      {answers.length === 0 ? (
        <p className="muted">The buyer answered no custom fields.</p>
      ) : (
        <dl className="orders-facts">
          {answers.map(([name, value]) => (
            <div key={name} style={{ display: 'contents' }}>
              <dt>{name}</dt>
              <dd>{typeof value === 'boolean' ? (value ? 'Yes' : 'No') : String(value)}</dd>
            </div>
          ))}
        </dl>
      )}
    </Card>
  );
}
