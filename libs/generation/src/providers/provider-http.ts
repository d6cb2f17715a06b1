import { HostResolver, isPublicAddress, pinnedLookup } from '@app/core';
import { lookup as systemLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Agent, Headers, RequestInit, Response } from 'undici';
import { GenerationError } from '../scene-generator';

/**
 * Messages are ours and fixed: partners see them on failed operations, so nothing a provider
 * said (bodies, status texts, headers) and no exception text ever goes into them.
 */
export const PROVIDER_MESSAGES = {
  provider_timeout: 'The generation provider did not answer in time.',
  provider_unavailable: 'The generation provider is unavailable. Try again later.',
  provider_rejected: 'The generation provider rejected the request.',
  provider_quota_exceeded: 'The generation provider has no credits left for this service. Try again later.',
  generation_failed: 'The generation provider returned an invalid result.',
  job_failed: 'The generation provider could not generate this scene.',
} as const;

export const providerTimeout = (cause?: unknown) =>
  new GenerationError('provider_timeout', PROVIDER_MESSAGES.provider_timeout, true, { cause });
export const providerUnavailable = (cause?: unknown, retryAfterMs?: number) =>
  new GenerationError('provider_unavailable', PROVIDER_MESSAGES.provider_unavailable, true, { cause, retryAfterMs });
export const providerRejected = (cause?: unknown) =>
  new GenerationError('provider_rejected', PROVIDER_MESSAGES.provider_rejected, false, { cause });
export const providerQuotaExceeded = (cause?: unknown) =>
  new GenerationError('provider_quota_exceeded', PROVIDER_MESSAGES.provider_quota_exceeded, false, { cause });
export const invalidResult = (cause?: unknown) =>
  new GenerationError('generation_failed', PROVIDER_MESSAGES.generation_failed, false, { cause });
/** The provider ran the job and it failed: its reason stays out of the message (it is provider output). */
export const jobFailed = (retryable: boolean) => new GenerationError('generation_failed', PROVIDER_MESSAGES.job_failed, retryable);

/** A provider answer's status, as an error of ours (the status only, never the body, as its cause). */
export function errorForStatus(status: number, retryAfterMs?: number): GenerationError {
  const cause = new Error(`provider answered HTTP ${status}`);
  if (status === 402) return providerQuotaExceeded(cause);
  if (status === 408 || status === 429 || status >= 500) return providerUnavailable(cause, retryAfterMs);
  return providerRejected(cause);
}

/** `Retry-After` in milliseconds: delta seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Math.min(Number(header.trim()), 3600) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - now), 3_600_000);
}

export interface ProviderHttpOptions {
  /** The provider's API root; its scheme decides whether downloads may use plain http (local fakes) or only https. */
  baseUrl: string;
  /** Headers every API call carries (the provider's key); never sent to download URLs, never logged. */
  headers: Record<string, string>;
  /** For one call: connecting, sending, waiting and reading the answer. */
  timeoutMs: number;
  /** The largest JSON answer read from the API; file downloads have their own cap. */
  maxJsonBytes?: number;
  /**
   * Resolves (within its own timeout) the names of hosts other than the provider's that it hands
   * back (file and upload URLs, redirects): only public addresses may be reached there.
   */
  resolver: HostResolver;
}

export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

const MAX_REDIRECTS = 3;
/** A download may take this long in all, as long as its bytes keep coming (see `download`). */
export const DOWNLOAD_TOTAL_MS = 60 * 60 * 1000;

/**
 * The timeout of one call: it fires `ms` after the call starts, or (`touch`) after the last sign
 * of life, so a large file arriving steadily is not cut off while a stalled one is.
 */
class Watchdog {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    this.timer = setTimeout(() => this.controller.abort(), ms);
    this.timer.unref();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  touch(): void {
    this.timer.refresh();
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}

type Answer = Response & { watchdog: Watchdog; caller?: AbortSignal; idle: boolean };

/**
 * undici (about 110 modules), loaded when a provider adapter is made: the built-in generator, and
 * every process that loads this lib without generating (the CLI removing an origin), never load it.
 */
function undici(): typeof import('undici') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, as said above
  return require('undici') as typeof import('undici');
}

/** A connection to a host the provider handed back would reach a private, loopback or link-local address. */
class AddressRefused extends Error {
  constructor() {
    super('a URL the provider handed back leads to an address that is not public');
    this.name = 'AddressRefused';
  }
}

/**
 * The HTTP side of every provider adapter, on undici's fetch: timeouts on every call, provider
 * failures mapped to our safe errors, answers read with a size cap, and downloads that refuse to
 * leave https (unless the provider itself is plain http, as the local fakes are) or to grow past
 * their cap. Redirects of API calls are not followed; a download follows at most three, each
 * checked again.
 *
 * The provider's own host (the operator's base URL) is trusted and resolved as the system
 * resolves it: an operator's own model may well run on a private network. Every other host — the
 * file, upload and redirect URLs a provider hands back, which a compromised or confused provider
 * could point anywhere — must be public: its name is resolved by the HostResolver (bounded, off
 * the thread pool) and checked at connection time, and the connection goes to exactly the
 * addresses checked (undici's connector takes our `lookup`), so DNS rebinding gains nothing.
 */
export class ProviderHttp {
  private readonly baseUrl: string;
  private readonly insecureAllowed: boolean;
  private readonly trustedHost: string;
  private readonly dispatcher: Agent;

  constructor(private readonly options: ProviderHttpOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.insecureAllowed = this.baseUrl.startsWith('http://');
    this.trustedHost = new URL(this.baseUrl).hostname;
    this.dispatcher = new (undici().Agent)({ connect: { lookup: pinnedLookup((host) => this.addressesOf(host)) } });
  }

  /**
   * A JSON call to the provider's API. 2xx answers are returned with their parsed body; any other
   * status becomes the matching GenerationError unless `accept` lists it (to read its body).
   */
  async json(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
    opts: { signal?: AbortSignal; headers?: Record<string, string>; accept?: number[] } = {},
  ): Promise<JsonAnswer> {
    const res = await this.send(`${this.baseUrl}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...this.options.headers,
        ...opts.headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
      signal: opts.signal,
    });
    if (!(res.status >= 200 && res.status < 300) && !opts.accept?.includes(res.status)) {
      await this.discard(res);
      throw errorForStatus(res.status, retryAfterMs(res.headers.get('retry-after')));
    }
    const text = (await this.readCapped(res, this.options.maxJsonBytes ?? 4 * 1024 * 1024)).toString('utf8');
    let parsed: unknown = null;
    if (text.trim() !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        // The parser's message quotes the body: keep it out of the cause too.
        throw invalidResult(new Error('provider answered something that is not JSON'));
      }
    }
    return { status: res.status, headers: res.headers, body: parsed };
  }

  /** A PUT of raw bytes to a URL the provider gave (a signed upload URL): no API key sent. */
  async upload(url: string, bytes: Buffer, headers: Record<string, string>, signal?: AbortSignal): Promise<void> {
    this.checkUrl(url);
    const res = await this.send(url, { method: 'PUT', headers, body: new Uint8Array(bytes), redirect: 'manual', signal });
    await this.discard(res);
    if (res.status < 200 || res.status >= 300) throw errorForStatus(res.status, retryAfterMs(res.headers.get('retry-after')));
  }

  /**
   * Downloads a file the provider handed back, refusing more than `maxBytes` (before reading,
   * when it says so). The call timeout applies to silence, not to the whole transfer: a splat of
   * hundreds of megabytes may take minutes, but a transfer that stalls for the timeout fails, and
   * none may take more than DOWNLOAD_TOTAL_MS.
   */
  async download(url: string, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
    const total = AbortSignal.timeout(DOWNLOAD_TOTAL_MS);
    const caller = signal ? AbortSignal.any([signal, total]) : total;
    let target = url;
    for (let hop = 0; ; hop++) {
      this.checkUrl(target);
      const res = await this.send(target, { method: 'GET', redirect: 'manual', signal: caller }, { idle: true });
      if (res.status >= 300 && res.status < 400 && res.headers.get('location') && hop < MAX_REDIRECTS) {
        await this.discard(res);
        target = new URL(res.headers.get('location')!, target).toString();
        continue;
      }
      if (res.status < 200 || res.status >= 300) {
        await this.discard(res);
        throw errorForStatus(res.status, retryAfterMs(res.headers.get('retry-after')));
      }
      const declared = Number(res.headers.get('content-length') ?? NaN);
      if (Number.isFinite(declared) && declared > maxBytes) {
        await this.discard(res);
        throw invalidResult(new Error(`a file of ${declared} bytes is over the ${maxBytes}-byte limit`));
      }
      try {
        return await this.readCapped(res, maxBytes);
      } catch (e) {
        if (total.aborted && !signal?.aborted) throw providerTimeout(new Error('a download took longer than its total limit'));
        throw e;
      }
    }
  }

  private checkUrl(url: string): void {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw invalidResult(new Error('provider handed back a URL that does not parse'));
    }
    const ok = parsed.protocol === 'https:' || (parsed.protocol === 'http:' && this.insecureAllowed);
    if (!ok || parsed.username || parsed.password) throw invalidResult(new Error('provider handed back a URL we do not fetch'));
    // An address literal is connected to without a lookup, so it is judged here.
    const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) && parsed.hostname !== this.trustedHost && !isPublicAddress(host)) throw invalidResult(new AddressRefused());
  }

  /** Where a connection to `host` may go: the provider's own host as the system resolves it; any other, public addresses only. */
  private async addressesOf(host: string): Promise<string[]> {
    if (host === this.trustedHost) return (await systemLookup(host, { all: true, verbatim: true })).map((a) => a.address);
    const addresses = await this.options.resolver.resolve(host);
    if (!addresses.every(isPublicAddress)) throw new AddressRefused();
    return addresses;
  }

  /**
   * The answer, with what reading its body needs: its watchdog (to keep alive or to tell a
   * timeout from a broken connection) and the caller's signal. `idle`: the timeout counts from
   * the last bytes received rather than from the start.
   */
  private async send(url: string, init: RequestInit, opts: { idle?: boolean } = {}): Promise<Answer> {
    const watchdog = new Watchdog(this.options.timeoutMs);
    const caller = init.signal ?? undefined;
    const signal = caller ? AbortSignal.any([caller, watchdog.signal]) : watchdog.signal;
    try {
      return Object.assign(await undici().fetch(url, { ...init, signal, dispatcher: this.dispatcher }), {
        watchdog,
        caller,
        idle: opts.idle ?? false,
      });
    } catch (e) {
      watchdog.dispose();
      throw this.transportError(e, watchdog.signal, caller);
    }
  }

  private transportError(e: unknown, timeout: AbortSignal, caller?: AbortSignal): unknown {
    if (caller?.aborted) return e;
    if (causedBy(e, AddressRefused)) return invalidResult(new AddressRefused());
    if (timeout.aborted) return providerTimeout(new Error('provider call timed out'));
    return providerUnavailable(new Error(`provider unreachable (${(e as Error)?.name ?? 'error'})`));
  }

  private async discard(res: Answer): Promise<void> {
    res.watchdog.dispose();
    await res.body?.cancel().catch(() => undefined);
  }

  /** Reads a body, aborting once it passes `max` bytes. */
  private async readCapped(res: Answer, max: number): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of (res.body ?? []) as unknown as AsyncIterable<Uint8Array>) {
        if (res.idle) res.watchdog.touch();
        total += chunk.byteLength;
        if (total > max) {
          await res.body?.cancel().catch(() => undefined);
          throw invalidResult(new Error(`an answer over the ${max}-byte limit`));
        }
        chunks.push(Buffer.from(chunk));
      }
    } catch (e) {
      if (e instanceof Error && e.name === 'GenerationError') throw e;
      throw this.transportError(e, res.watchdog.signal, res.caller);
    } finally {
      res.watchdog.dispose();
    }
    return Buffer.concat(chunks, total);
  }
}

/** Whether `e` or an error it wraps (fetch wraps connection failures in `cause`) is a `type`. */
function causedBy(e: unknown, type: new (...args: never[]) => Error): boolean {
  let current: unknown = e;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof type) return true;
    current = (current as Error).cause;
  }
  return false;
}
