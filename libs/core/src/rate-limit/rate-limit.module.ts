import { Global, Module } from '@nestjs/common';
import { RateLimiter, RateLimits } from './rate-limiter';

@Global()
@Module({ providers: [RateLimits, RateLimiter], exports: [RateLimits, RateLimiter] })
export class RateLimitModule {}
