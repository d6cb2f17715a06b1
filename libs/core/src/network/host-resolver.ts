import { Resolver } from 'node:dns';
import { isIP } from 'node:net';

/**
 * Why a name gave no address: `not_found` (NXDOMAIN, or no A/AAAA record) is the name's own
 * answer; `timeout` (no server answered in time) and `failed` (SERVFAIL, refused, unreachable
 * server) say nothing about the name and are worth another try later.
 */
export type HostResolutionReason = 'not_found' | 'timeout' | 'failed';

export class HostResolutionError extends Error {
  constructor(readonly reason: HostResolutionReason) {
    super(
      reason === 'not_found'
        ? 'the host name does not resolve'
        : `resolving the host name ${reason === 'timeout' ? 'timed out' : 'failed'}`,
    );
    this.name = 'HostResolutionError';
  }

  get transient(): boolean {
    return this.reason !== 'not_found';
  }
}

export interface HostResolverOptions {
  /** `host[:port]` of the DNS servers to ask (IP addresses); null: the system's (/etc/resolv.conf). */
  servers: string[] | null;
  /** The longest one resolution may take, all tries and servers included. */
  timeoutMs: number;
}

/** RFC 6761: `localhost` and its subdomains are loopback, answered without asking DNS. */
const LOOPBACK = ['127.0.0.1', '::1'];

/** c-ares codes that mean the name has no address (rather than that nobody answered). */
const NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME']);

/**
 * Resolves host names for connections made on someone else's behalf (webhook targets, URLs a
 * generation provider hands back), whose names we do not control. It asks DNS through c-ares
 * (`dns.Resolver`: resolve4/resolve6 on the event loop), not getaddrinfo: getaddrinfo runs on
 * libuv's small thread pool, which sharp shares, so a name whose DNS server never answers would
 * hold pool threads for the system resolver's whole retry cycle and stall image uploads. Every
 * resolution ends within `timeoutMs`, or sooner when the caller's signal aborts.
 *
 * c-ares does not read /etc/hosts: `localhost` is answered here (RFC 6761) and IP literals need
 * no lookup; any other name is DNS's to answer.
 */
export class HostResolver {
  constructor(private readonly options: HostResolverOptions) {
    // A server list that does not parse fails here, at boot, rather than at the first resolution.
    this.channel().cancel();
  }

  /**
   * A c-ares channel for one resolution, cancelled when it ends: a query we stopped waiting for
   * (out of time, or the caller gave up) must not linger on, holding a socket and the process
   * open. Two rounds of c-ares's own retries, the second waiting longer than the first (how much
   * longer varies between c-ares versions), fit about within the budget at a quarter of it each;
   * `resolve` enforces the budget whatever c-ares does.
   */
  private channel(): Resolver {
    const resolver = new Resolver({ timeout: Math.max(25, Math.floor(this.options.timeoutMs / 4)), tries: 2 });
    if (this.options.servers) resolver.setServers(this.options.servers);
    return resolver;
  }

  /**
   * The IPv4 and IPv6 addresses of `host` (a URL's hostname; brackets of an IPv6 literal are
   * fine). Rejects with HostResolutionError, or with the signal's reason when it aborts first.
   */
  resolve(host: string, signal?: AbortSignal): Promise<string[]> {
    const name = host
      .replace(/^\[(.*)\]$/, '$1')
      .replace(/\.$/, '')
      .toLowerCase();
    if (isIP(name)) return Promise.resolve([name]);
    if (name === 'localhost' || name.endsWith('.localhost')) return Promise.resolve([...LOOPBACK]);
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const channel = this.channel();
    return new Promise<string[]>((resolve, reject) => {
      const found: string[] = [];
      const failures: string[] = [];
      let pending = 2;
      let finished = false;
      const finish = (error: Error | null) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        channel.cancel();
        signal?.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve(found);
      };
      const onAbort = () => finish(abortReason(signal!));
      // Out of time: what one family already answered is an answer; nothing at all is a timeout.
      const timer = setTimeout(() => finish(found.length > 0 ? null : new HostResolutionError('timeout')), this.options.timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      const answered = (error: NodeJS.ErrnoException | null, addresses: string[]) => {
        if (finished) return;
        if (error) failures.push(error.code ?? 'EFAIL');
        else found.push(...addresses);
        if (--pending > 0) return;
        finish(found.length > 0 ? null : new HostResolutionError(reasonOf(failures)));
      };
      channel.resolve4(name, answered);
      channel.resolve6(name, answered);
    });
  }
}

/**
 * The reason the caller aborted with (AbortSignal.timeout's is a DOMException TimeoutError, an
 * Error by shape though not always by `instanceof` across realms), else an Error of ours.
 */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return typeof reason === 'object' && reason !== null && 'name' in reason && 'message' in reason
    ? (reason as Error)
    : new Error('aborted');
}

/** Both families failed (or found nothing): the most hopeful reason wins, so a transient failure is retried. */
function reasonOf(codes: string[]): HostResolutionReason {
  if (codes.includes('ETIMEOUT')) return 'timeout';
  if (codes.every((c) => NOT_FOUND.has(c))) return 'not_found';
  return 'failed';
}
