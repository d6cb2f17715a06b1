import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig, ConfigOverrides, loadConfig } from './app-config';

@Global()
@Module({})
export class ConfigModule {
  /** Pass an already-loaded config (main.ts loads it before Nest starts) or overrides for tests. */
  static forRoot(config: AppConfig | ConfigOverrides = {}): DynamicModule {
    const value = config instanceof AppConfig ? config : loadConfig(config);
    return { module: ConfigModule, providers: [{ provide: AppConfig, useValue: value }], exports: [AppConfig] };
  }
}
