export * from './dto/create-embed-session.dto';
export * from './dto/embed-session.response';
export * from './embed-secret';
export * from './embed-session.entity';
export * from './embed-sessions.errors';
export * from './embed-sessions.module';
export * from './embed-sessions.repository';
export * from './embed-sessions.service';
