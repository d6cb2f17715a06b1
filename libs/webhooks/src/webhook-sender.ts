import { AppConfig, Clock, HostResolutionError, pinnedLookup } from '@app/core';
import { Injectable } from '@nestjs/common';
import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import { WebhookAttempt } from './webhook-delivery.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { SecretBox } from './webhook-secrets';
import { TargetRefused, WebhookTargets } from './webhook-target';
import { WEBHOOKS_CONFIG } from './webhooks.config';

class DeliveryTimeout extends Error {}

const USER_AGENT = 'SceneStudio-Webhooks/1';

/** Where a message goes and what signs it: an endpoint's columns. */
export type SendTarget = Pick<
  WebhookEndpointEntity,
  'url' | 'allowLoopback' | 'secretSealed' | 'previousSecretSealed' | 'previousSecretExpiresAt'
>;

/**
 * One signed attempt at one endpoint, and nothing more (no record of it): checks the target
 * (egress rules, again at every attempt), signs the body with the endpoint's secret (Standard
 * Webhooks, `standardwebhooks`), POSTs it to the address it just checked and reports the answer's
 * status in our words. The worker's dispatcher records what it returns; the api's test send
 * (`:test`) answers with it.
 */
@Injectable()
export class WebhookSender {
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true, keepAliveMsecs: 1000, timeout: 4000 }),
    'https:': new https.Agent({ keepAlive: true, keepAliveMsecs: 1000, timeout: 4000 }),
  };

  constructor(
    private readonly targets: WebhookTargets,
    private readonly secrets: SecretBox,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /** Drops the pooled connections; the dispatcher calls it once its deliveries have ended. */
  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }

  /**
   * `pooled: false` for a one-off send (the api's `:test`): its connection closes with the answer
   * instead of idling in the pool, where it would hold the receiver's server open.
   */
  async send(target: SendTarget, messageId: string, body: string, options: { pooled?: boolean } = {}): Promise<WebhookAttempt> {
    const started = this.clock.now();
    const t0 = performance.now();
    // The one deadline of the attempt: resolving the name, connecting, sending, the status line.
    const deadline = AbortSignal.timeout(this.config.slice(WEBHOOKS_CONFIG).timeoutMs);
    let statusCode: number | null = null;
    let error: WebhookAttempt['error'] = null;
    try {
      const { url, addresses } = await this.targets.check(target.url, target.allowLoopback, deadline);
      const agent = options.pooled === false ? false : this.agents[url.protocol as 'http:' | 'https:'];
      statusCode = await this.post(url, addresses[0], this.headers(target, messageId, body, started), body, deadline, agent);
      if (statusCode < 200 || statusCode > 299) error = 'http_status';
    } catch (e) {
      error = attemptError(e, deadline);
    }
    return { attemptedAt: started.toISOString(), statusCode, error, durationMs: Math.round(performance.now() - t0) };
  }

  /** Standard Webhooks headers; during a rotation's overlap both secrets sign (space-separated). */
  private headers(target: SendTarget, messageId: string, body: string, at: Date): Record<string, string> {
    const sealed = [target.secretSealed];
    if (target.previousSecretSealed && target.previousSecretExpiresAt && target.previousSecretExpiresAt > at) {
      sealed.push(target.previousSecretSealed);
    }
    const signature = sealed.map((s) => new Webhook(this.secrets.open(s)).sign(messageId, at, body)).join(' ');
    return {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': messageId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    };
  }

  /**
   * POSTs to `address` (already checked) under the URL's host name (TLS verifies the certificate
   * for the name). `deadline` ends the whole exchange up to the answer's status line; the
   * answer's body is read and dropped (under the same deadline), never stored. Redirects are not
   * followed: a 3xx fails.
   */
  private post(
    url: URL,
    address: string,
    headers: Record<string, string>,
    body: string,
    deadline: AbortSignal,
    agent: http.Agent | false,
  ): Promise<number> {
    deadline.throwIfAborted();
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<number>((resolve, reject) => {
      const req = client.request(url, {
        method: 'POST',
        agent,
        lookup: pinnedLookup(() => Promise.resolve([address])),
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      });
      const onDeadline = () => req.destroy(new DeliveryTimeout());
      const done = () => deadline.removeEventListener('abort', onDeadline);
      deadline.addEventListener('abort', onDeadline, { once: true });
      req.on('response', (res) => {
        resolve(res.statusCode ?? 0);
        res.on('end', done);
        res.on('close', done);
        res.resume();
      });
      req.on('error', (e) => {
        done();
        reject(e);
      });
      req.end(body);
    });
  }
}

/** Our word for a failed attempt; the deadline's passing is a timeout whatever step it stopped. */
function attemptError(e: unknown, deadline: AbortSignal): WebhookAttempt['error'] {
  if (e instanceof TargetRefused) return 'target_not_allowed';
  if (deadline.aborted || e instanceof DeliveryTimeout) return 'timeout';
  if (e instanceof HostResolutionError && e.reason === 'timeout') return 'timeout';
  return 'connection_failed';
}
