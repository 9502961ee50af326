const assert = require('node:assert');

describe('isoDay', () => {
  it('formats a day', () => {
    assert.strictEqual(dates.isoDay(new Date(Date.UTC(2026, 10, 29))), '2026-11-29');
  });
  it.skip('knows time zones', () => {});
});
