import { createServer, get } from 'node:http';
import { AddressInfo, LookupFunction } from 'node:net';
import { pinnedLookup } from './pinned-lookup';

/** What a lookup answers to `options`, as net would receive it. */
function ask(lookup: LookupFunction, options: object): Promise<{ error: Error | null; address: unknown; family?: number }> {
  return new Promise((resolve) =>
    lookup('hooks.partner.example', options, (error, address, family) => resolve({ error, address, family })),
  );
}

describe(pinnedLookup.name, () => {
  const sut = pinnedLookup(() => Promise.resolve(['127.0.0.1', '::1']));

  it('answers with the given addresses: all of them, one, or those of the family asked for', async () => {
    expect(await ask(sut, { all: true })).toEqual({
      error: null,
      address: [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ],
    });
    expect(await ask(sut, {})).toEqual({ error: null, address: '127.0.0.1', family: 4 });
    expect(await ask(sut, { family: 6 })).toEqual({ error: null, address: '::1', family: 6 });
  });

  it('fails the connection with the resolver’s error, or when no address of the family is left', async () => {
    const refused = new Error('not public');
    expect(
      (
        await ask(
          pinnedLookup(() => Promise.reject(refused)),
          {},
        )
      ).error,
    ).toBe(refused);
    expect(
      (
        await ask(
          pinnedLookup(() => Promise.resolve(['127.0.0.1'])),
          { family: 6 },
        )
      ).error,
    ).toMatchObject({ code: 'ENOTFOUND' });
  });

  it('makes a real connection go to the pinned address, whatever the name', async () => {
    const server = createServer((_, res) => res.end('pinned'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const res = await fetchVia(
        `http://no-such-name.invalid:${port}/`,
        pinnedLookup(() => Promise.resolve(['127.0.0.1'])),
      );
      expect(res).toBe('pinned');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

function fetchVia(url: string, lookup: LookupFunction): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { lookup }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}
