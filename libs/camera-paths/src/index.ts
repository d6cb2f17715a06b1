export * from './camera-path-rules';
export * from './camera-path.entity';
export * from './camera-paths.errors';
export * from './camera-paths.module';
export * from './camera-paths.repository';
export * from './camera-paths.service';
export * from './dto/camera-path.dto';
export * from './dto/camera-path.response';
