import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gatewayLabel, langOf } from '../../src/i18n/lang.js';
import { paymentProviderNames } from '../../src/modules/shops/payments.js';
import { GATEWAY_NAMES, gatewayName } from '../../src/shared/gateway-names.js';

/**
 * One name per payment method (issue 37): the storefront, the admin and the mails all read
 * src/shared/gateway-names.ts, so a method cannot go by two names again, and a new method the API
 * takes fails here until it has its name.
 */
test('every payment method the API takes has exactly one name, and no two share one', () => {
  assert.deepEqual(Object.keys(GATEWAY_NAMES).sort(), [...paymentProviderNames].sort());
  const names = Object.values(GATEWAY_NAMES);
  assert.equal(new Set(names).size, names.length);
  assert.equal(gatewayName('cardconnect'), 'Card');
  assert.equal(gatewayName('some-future-method'), 'some-future-method', 'an unknown id is shown as it is');
});

test("the storefront's English names each method as the admin does; German has its own", () => {
  for (const [id, name] of Object.entries(GATEWAY_NAMES)) {
    assert.equal(gatewayLabel(langOf('en'), id), name, id);
    assert.ok(gatewayLabel(langOf('de'), id).length > 0, id);
  }
  assert.equal(gatewayLabel(langOf('de'), 'balance'), 'Guthaben im Shop');
  assert.equal(gatewayLabel(langOf('de'), 'some-future-method'), 'some-future-method');
});
