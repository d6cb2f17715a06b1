import { AppConfig, HostResolutionError, HostResolver, isLoopbackAddress, isPublicAddress } from '@app/core';
import { Injectable } from '@nestjs/common';
import { WEBHOOKS_CONFIG } from './webhooks.config';

/** Why a target URL or address is refused; shown to the partner as a field error's message. */
export class TargetRefused extends Error {}

/** The one shape of local target a test organization may use: http://localhost:<port>. */
export function isLocalhostTarget(url: URL): boolean {
  return url.protocol === 'http:' && url.hostname === 'localhost' && url.port !== '';
}

/**
 * The shape rules of an endpoint URL, before any DNS: absolute http(s) URL without credentials
 * or fragment; `https:` unless it is a test organization's http://localhost:<port>.
 */
export function parseTargetUrl(raw: string, allowLoopback: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused('url must be an absolute https:// URL');
  }
  if (url.username || url.password) throw new TargetRefused('url must not contain credentials');
  if (url.hash) throw new TargetRefused('url must not contain a fragment');
  if (allowLoopback && isLocalhostTarget(url)) return url;
  if (url.protocol !== 'https:') {
    throw new TargetRefused(
      allowLoopback ? 'url must be https:// on a public host, or http://localhost:<port>' : 'url must be https:// on a public host',
    );
  }
  return url;
}

export interface CheckedTarget {
  url: URL;
  /** Where a delivery may connect: every address the name has, each of them allowed. */
  addresses: string[];
}

/**
 * Which URLs webhooks may go to, decided the same way when an endpoint is created or changed and
 * again before every delivery (an installation's settings may have changed since, and a DNS
 * answer may have). A live organization's URL must resolve to public addresses only. A test
 * organization may also use http://localhost:<port>, which may reach loopback only — not in
 * production unless WEBHOOK_ALLOW_LOOPBACK says so, and never on a port of this service's own
 * processes (its api, studio, worker and ops ports), which would let a partner drive our own
 * endpoints from inside.
 *
 * Names go through the HostResolver (c-ares, with its own timeout): a DNS server that never
 * answers costs a pending query, not a thread of the pool that image processing runs on.
 */
@Injectable()
export class WebhookTargets {
  private readonly ownPorts: ReadonlySet<number>;

  constructor(
    private readonly resolver: HostResolver,
    private readonly config: AppConfig,
  ) {
    const p = config.ports;
    // 0 (an ops port on any free port) names no port to refuse.
    this.ownPorts = new Set([p.api, p.studio, p.worker, p.apiOps, p.studioOps].filter((port) => port > 0));
  }

  /**
   * The URL and the addresses it may reach. Throws TargetRefused for a URL that may not be a
   * target (also a name that does not exist), HostResolutionError when DNS did not answer in
   * time or failed (transient: the URL may be fine), or the signal's reason when it aborts.
   */
  async check(raw: string, isTest: boolean, signal?: AbortSignal): Promise<CheckedTarget> {
    const url = parseTargetUrl(raw, isTest);
    const local = isTest && isLocalhostTarget(url);
    if (local && !this.config.slice(WEBHOOKS_CONFIG).allowLoopback)
      throw new TargetRefused('http://localhost targets are not enabled on this installation');
    if (local && this.ownPorts.has(Number(url.port))) throw new TargetRefused('url must not point at a port of this service');
    let addresses: string[];
    try {
      addresses = await this.resolver.resolve(url.hostname, signal);
    } catch (e) {
      if (e instanceof HostResolutionError && !e.transient) throw new TargetRefused('url host does not resolve');
      throw e;
    }
    // A name with one private address among public ones is refused as a whole: a connection could land on it.
    const allowed = local ? addresses.every(isLoopbackAddress) : addresses.every(isPublicAddress);
    if (!allowed) throw new TargetRefused('url must point to a public address (not private, loopback, link-local or metadata)');
    return { url, addresses };
  }
}
