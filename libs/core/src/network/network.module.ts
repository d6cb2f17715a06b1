import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../config';
import { HostResolver } from './host-resolver';

/** The resolver for outbound connections, one per process (OUTBOUND_DNS_SERVERS, OUTBOUND_DNS_TIMEOUT_MS). */
@Global()
@Module({
  providers: [{ provide: HostResolver, inject: [AppConfig], useFactory: (config: AppConfig) => new HostResolver(config.outboundDns) }],
  exports: [HostResolver],
})
export class NetworkModule {}
