export * from './health.controller';
export * from './health-service.module';
export * from './health.module';
export * from './health.service';
export * from './ops-server';
export * from './boot-check';
