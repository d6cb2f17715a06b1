import type { LookupFunction } from 'node:net';
import { isIPv6 } from 'node:net';

/**
 * A `lookup` for net/tls/http(s) connections (and undici's connector) that answers with the
 * addresses `resolve` returns for the host: the connection goes to exactly the addresses that
 * were checked, so a DNS answer that changes in between (rebinding) gains nothing. Node asks
 * with `all: true` when it races IPv4 and IPv6 (autoSelectFamily) and for one address otherwise;
 * a `family` hint narrows the answer. A rejection of `resolve` fails the connection with it.
 */
export function pinnedLookup(resolve: (host: string) => Promise<string[]>): LookupFunction {
  return (host, options, callback) => {
    resolve(host).then(
      (addresses) => {
        const family = options.family;
        const wanted = family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : 0;
        const all = addresses
          .map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }))
          .filter((a) => !wanted || a.family === wanted);
        if (all.length === 0) return callback(Object.assign(new Error(`no usable address for ${host}`), { code: 'ENOTFOUND' }), '', 0);
        if (options.all) callback(null, all);
        else callback(null, all[0].address, all[0].family);
      },
      (error: Error) => callback(error, '', 0),
    );
  };
}
