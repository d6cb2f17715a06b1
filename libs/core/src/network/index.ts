export * from './address-range';
export * from './host-resolver';
export * from './network.module';
export * from './pinned-lookup';
