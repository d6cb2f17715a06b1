export * from './api-key';
export * from './api-key-authenticator';
export * from './organizations.errors';
export * from './organizations.module';
export * from './organizations.service';
export * from './origin';
export * from './origin-removal-hooks';
export * from './migrations';
