import { parseExactJson } from '../../../gateway/http/exact-json';

/** The lossless JSON parse of routes whose numbers must stay exact (gateway/http/exact-json.ts). */
describe('exact JSON numbers', () => {
  it('parses as JSON.parse does and keeps each number’s text by its place', () => {
    const body =
      '{"traits":[{"value":1000000000000000000000001},{"value":"12"},{"value":-0.10000000000000000000001e-3}],"s":"a\\"b 12 -3","n":[1E+21,0,{"x":5}]}';
    const { value, numbers } = parseExactJson(body);
    expect(value).toEqual(JSON.parse(body));
    expect(Object.fromEntries(numbers)).toEqual({
      '["traits",0,"value"]': '1000000000000000000000001',
      '["traits",2,"value"]': '-0.10000000000000000000001e-3',
      '["n",0]': '1E+21',
      '["n",1]': '0',
      '["n",2,"x"]': '5',
    });
  });

  it('keeps a "__proto__" key an own property, as JSON.parse does', () => {
    const { value, numbers } = parseExactJson('{"__proto__":5}');
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toBe(5);
    expect(numbers.get('["__proto__"]')).toBe('5');
  });

  it.each(['{"a":01}', '{"a":1.}', '{"a":-}', '{"a":1e}', '{"a":"x}', '{"a":.5}', '[1 2]', '{"a":+1}', '{"a":NaN}', ''])(
    'refuses %s as invalid JSON',
    (text) => {
      expect(() => parseExactJson(text)).toThrow('the request body is not valid JSON');
    },
  );

  it('refuses the NUL escape, which would be mistaken for a placeholder', () => {
    expect(() => parseExactJson('{"a":"\\u00000"}')).toThrow('NUL');
  });

  it('reads long strings and escapes without trouble', () => {
    const long = `{"a":"${'x'.repeat(2_000_000)}","b":[${Array(10).fill('"\\\\\\""').join(',')}]}`;
    const { value } = parseExactJson(long);
    expect(value).toEqual(JSON.parse(long));
  });
});
