// Nested node:test tests: what node counts is every test at every depth (a test() with
// subtests too), never a describe.
import { describe, it, test, before } from 'node:test';
import assert from 'node:assert/strict';

describe('parser', () => {
  it('reads a number', () => {
    assert.equal(Number('42'), 42);
  });

  it('reads a negative number', () => {
    assert.equal(Number('-1'), 2);
  });

  it.skip('reads hexadecimal', () => {});

  it.todo('reads octal');

  describe('strings', () => {
    it('reads a quoted string', () => {
      assert.equal(JSON.parse('"a"'), 'a');
    });

    it('reads escapes', { skip: 'not yet' }, () => {});

    describe('unicode', () => {
      it('reads a surrogate pair', () => {
        assert.equal('\u{1F600}'.length, 2);
      });

      it('normalises', { todo: 'NFC first' }, () => {
        assert.equal('e\u0301', '\u00e9');
      });
    });
  });

  describe('an empty group', () => {});
});

describe('a group whose setup throws', () => {
  before(() => {
    throw new Error('no database');
  });

  it('is cancelled', () => {});
  it('is cancelled too', () => {});
});

test('a test with subtests', async (t) => {
  await t.test('first step', () => {});
  await t.test('second step', () => {});
});

test('a test whose subtest fails', async (t) => {
  await t.test('breaks', () => {
    assert.deepEqual({ a: 1 }, { a: 2 });
  });
});

test('a test that does not wait for its subtest', (t) => {
  t.test('is cancelled by its parent', async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
  });
});

test('a skipped test', { skip: true }, () => {});

test('a todo test', { todo: true }, () => {});
