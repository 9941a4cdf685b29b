import assert from 'node:assert/strict';
import { parseAddress, remembered } from '../../facade/net.ts';

describe('addresses parsed once (remembered)', () => {
  it('answers as the function does, undefined included, asking it once per text', () => {
    const asked: string[] = [];
    const parse = remembered((text) => {
      asked.push(text);
      return text === 'none' ? undefined : text.toUpperCase();
    });
    assert.deepEqual(
      [parse('a'), parse('none'), parse('a'), parse('none')],
      ['A', undefined, 'A', undefined],
    );
    assert.deepEqual(asked, ['a', 'none']);
  });

  it('does not keep text longer than an address, and forgets everything past its bound', () => {
    const asked: string[] = [];
    const parse = remembered((text) => asked.push(text), 100, 2);
    const long = 'x'.repeat(101);
    parse(long);
    parse(long);
    parse('a');
    parse('b');
    parse('c'); // third entry: a, b forgotten
    parse('a');
    parse('c');
    assert.deepEqual(asked, [long, long, 'a', 'b', 'c', 'a']);
  });

  it('parseAddress gives the same answers the second time', () => {
    for (const entry of [
      '203.0.113.7:51234',
      '[2001:db8::1]:443',
      '::ffff:10.0.0.1',
      'unknown',
      ' 10.1.2.3 ',
    ]) {
      assert.equal(parseAddress(entry), parseAddress(entry));
    }
    assert.equal(parseAddress('::ffff:10.0.0.1'), '10.0.0.1');
    assert.equal(parseAddress('unknown'), undefined);
  });
});
