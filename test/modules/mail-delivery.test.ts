import assert from 'node:assert/strict';
import { test } from 'node:test';
import { langOf } from '../../src/i18n/lang.js';
import { deliveryMail } from '../../src/modules/mail/index.js';

const en = langOf('en');

const invoiceUrl = 'https://shop.example.com/s/creme/invoices/inv_8f3kQ2pLx9aZ';

test('the delivery mail lists every part with its deliverables one per line, then the total and the link', () => {
  const mail = deliveryMail({
    lang: en,
    shopName: 'Crème Keys',
    invoiceId: 'inv_8f3kQ2pLx9aZ',
    invoiceUrl,
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
      'Your order page keeps your goods; you can leave feedback or open a support ticket there:',
      invoiceUrl,
      '',
    ].join('\n'),
  );
});

test('the seller note comes last; a blank note is left out', () => {
  const base = {
    lang: en,
    shopName: 'S',
    invoiceId: 'inv_1',
    invoiceUrl,
    total: '5.00 EUR',
    parts: [{ title: 'Key', quantity: 1, deliverables: ['K1'] }],
  };
  const withNote = deliveryMail({ ...base, note: '  Redeem on the launcher.\r\nThanks!  ' });
  assert.ok(withNote.text.endsWith(`${invoiceUrl}\n\nA note from the seller:\nRedeem on the launcher.\nThanks!\n`));
  assert.match(withNote.html, /A note from the seller[\s\S]*Redeem on the launcher\.\nThanks!<\/p>/);
  for (const note of [undefined, null, '', '   ']) {
    const mail = deliveryMail({ ...base, note });
    assert.ok(mail.text.endsWith(`${invoiceUrl}\n`), String(note));
    assert.doesNotMatch(mail.html, /A note from the seller/, String(note));
  }
});

test('names cannot break the subject; multi-line deliverables keep their lines', () => {
  const mail = deliveryMail({
    lang: en,
    shopName: 'Evil\r\nBcc: victim@example.com',
    invoiceId: 'inv_2',
    invoiceUrl,
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
  assert.match(mail.html, /<pre[^>]*>user: a\npass: b<\/pre>/, 'a multi-line item is one block in the HTML');
  assert.doesNotMatch(mail.html, /\r/);
});
