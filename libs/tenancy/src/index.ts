export * from './dto/usage.response';
export * from './dto/usage.query';
export * from './generation-backlogs';
export * from './limits.service';
export * from './tenancy.errors';
export * from './tenancy.module';
export * from './usage-metrics';
export * from './usage.service';
