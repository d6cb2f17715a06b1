import { bearerToken } from './bearer-token';

describe(bearerToken.name, () => {
  it.each<[string | string[] | undefined, string | null]>([
    [undefined, null],
    ['', null],
    ['Bearer', null],
    ['Bearer ', null],
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER\tabc  ', 'abc'],
    ['Bearer a b', null],
    ['Basic abc', null],
    ['Bearerabc', null],
    [['Bearer abc', 'Bearer def'], null],
  ])('reads %p as %p', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });
});
