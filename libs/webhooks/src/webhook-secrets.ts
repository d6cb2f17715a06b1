import { AppConfig, RandomSource } from '@app/core';
import { Injectable, Logger } from '@nestjs/common';
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { WEBHOOKS_CONFIG } from './webhooks.config';

const SECRET_PREFIX = 'whsec_';
/** The Standard Webhooks format: `whsec_` and base64 of at least 24 random bytes; we use 32. */
export function newSigningSecret(random: RandomSource): string {
  return SECRET_PREFIX + random.bytes(32).toString('base64');
}

/**
 * Seals signing secrets at rest. Unlike API keys and embed secrets they cannot be stored as
 * hashes: the worker signs every delivery with them. AES-256-GCM under WEBHOOK_SECRETS_KEY, so a
 * copy of the database alone does not let anyone forge our signatures. Sealed form:
 * `v1.<iv>.<tag>.<ciphertext>`, base64url parts; the version leaves room for a key rotation.
 */
@Injectable()
export class SecretBox {
  private readonly key: Buffer;
  /** Warned once, on first use: a process (or a CLI command) that never seals or opens a secret says nothing. */
  private unwarned: boolean;

  constructor(
    config: AppConfig,
    private readonly random: RandomSource,
  ) {
    const { secretsKey, secretsKeyIsDevelopment } = config.slice(WEBHOOKS_CONFIG);
    this.key = secretsKey;
    this.unwarned = secretsKeyIsDevelopment && config.env !== 'test';
  }

  private warnOfDevelopmentKey(): void {
    if (!this.unwarned) return;
    this.unwarned = false;
    new Logger(SecretBox.name).warn('WEBHOOK_SECRETS_KEY is not set: webhook secrets are sealed with the development key');
  }

  seal(secret: string): string {
    this.warnOfDevelopmentKey();
    const iv = this.random.bytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    this.warnOfDevelopmentKey();
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed webhook secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}
