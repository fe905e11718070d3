import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deliveryMail } from '../../src/modules/mail/delivery-mail.js';

test('the delivery mail lists every part with its deliverables one per line, then the total', () => {
  const mail = deliveryMail({
    shopName: 'Crème Keys',
    invoiceId: 'inv_8f3kQ2pLx9aZ',
    total: '19.98 USD',
    parts: [
      { title: 'Game key', quantity: 2, deliverables: ['AAAA-BBBB', 'CCCC-DDDD'] },
      { title: 'Setup service', quantity: 1, deliverables: ['We will contact you within a day.'] },
    ],
  });
  assert.equal(mail.subject, 'Your order inv_8f3kQ2pLx9aZ from Crème Keys');
  assert.equal(
    mail.text,
    [
      'Thank you for your order from Crème Keys.',
      '',
      'Order: inv_8f3kQ2pLx9aZ',
      '',
      'Game key × 2',
      'AAAA-BBBB',
      'CCCC-DDDD',
      '',
      'Setup service × 1',
      'We will contact you within a day.',
      '',
      'Total: 19.98 USD',
      '',
    ].join('\n'),
  );
});

test('the seller note comes last; a blank note is left out', () => {
  const base = {
    shopName: 'S',
    invoiceId: 'inv_1',
    total: '5.00 EUR',
    parts: [{ title: 'Key', quantity: 1, deliverables: ['K1'] }],
  };
  assert.ok(
    deliveryMail({ ...base, note: '  Redeem on the launcher.\r\nThanks!  ' }).text.endsWith(
      'Total: 5.00 EUR\n\nA note from the seller:\nRedeem on the launcher.\nThanks!\n',
    ),
  );
  for (const note of [undefined, null, '', '   ']) {
    assert.ok(deliveryMail({ ...base, note }).text.endsWith('Total: 5.00 EUR\n'), String(note));
  }
});

test('names cannot break the subject; multi-line deliverables keep their lines', () => {
  const mail = deliveryMail({
    shopName: 'Evil\r\nBcc: victim@example.com',
    invoiceId: 'inv_2',
    total: '1 JPY',
    parts: [
      { title: 'Account\nbundle', quantity: 1, deliverables: ['user: a\r\npass: b'] },
      { title: 'Later', quantity: 3, deliverables: [] },
    ],
  });
  assert.equal(mail.subject, 'Your order inv_2 from Evil Bcc: victim@example.com');
  assert.doesNotMatch(mail.subject, /[\r\n]/);
  assert.match(mail.text, /\nAccount bundle × 1\nuser: a\npass: b\n\nLater × 3\n\(nothing to deliver\)\n/);
  assert.doesNotMatch(mail.text, /\r/);
});
