export * from './http-app';
export * from './parse-id.pipe';
export * from './problem';
export * from './problem-details.filter';
export * from './request-id';
export * from './validation';
export * from './json-body.guard';
