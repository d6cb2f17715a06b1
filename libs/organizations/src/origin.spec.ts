import { exactOrigin, isLocalhostOrigin } from './origin';

describe(exactOrigin.name, () => {
  it.each([
    'https://app.acme.example',
    'https://app.acme.example:8443',
    'http://localhost:5173',
    'https://xn--bcher-kva.example',
    'http://127.0.0.1:8080',
  ])('accepts the serialized origin %s', (o) => {
    expect(exactOrigin(o)).toBe(o);
  });

  it.each([
    'https://app.acme.example/',
    'https://app.acme.example/path',
    'https://app.acme.example?x=1',
    'https://app.acme.example#f',
    'https://user:pw@app.acme.example',
    'https://APP.acme.example',
    'https://app.acme.example:443',
    'http://localhost:80',
    'HTTPS://app.acme.example',
    'app.acme.example',
    'ftp://app.acme.example',
    'https://bücher.example',
    ' https://app.acme.example',
    'null',
    '',
  ])('refuses %p', (o) => {
    expect(exactOrigin(o)).toBeNull();
  });

  it('refuses non-strings', () => {
    expect(exactOrigin(42)).toBeNull();
    expect(exactOrigin(null)).toBeNull();
  });
});

describe(isLocalhostOrigin.name, () => {
  it.each([
    ['http://localhost:3000', true],
    ['http://localhost:65535', true],
    ['http://localhost:65536', false],
    ['http://localhost', false],
    ['https://localhost:3000', false],
    ['http://127.0.0.1:3000', false],
    ['http://localhost:03000', false],
    ['http://localhost.evil.example:3000', false],
  ])('%s → %s', (o, expected) => {
    expect(isLocalhostOrigin(o)).toBe(expected);
  });
});
