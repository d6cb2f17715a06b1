import { Global, Module } from '@nestjs/common';
import { CredentialLookups } from './credential-lookups';
import { RateLimiter, RateLimits } from './rate-limiter';

@Global()
@Module({ providers: [RateLimits, RateLimiter, CredentialLookups], exports: [RateLimits, RateLimiter, CredentialLookups] })
export class RateLimitModule {}
