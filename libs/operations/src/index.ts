export * from './dto/operation.response';
export * from './operation-error';
export * from './operation.entity';
export * from './operations.module';
export * from './operations.repository';
export * from './operations.service';
