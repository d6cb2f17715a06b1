import 'reflect-metadata';
import { createHttpAdapter, exitOnConfigError, loadConfig } from '@app/core';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { configureStudioApp } from './studio.app';
import { StudioModule } from './studio.module';

async function main(): Promise<void> {
  const config = exitOnConfigError(() => loadConfig());
  const app = await NestFactory.create<NestExpressApplication>(StudioModule.forRoot({ config }), createHttpAdapter(), {
    bufferLogs: true,
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  await configureStudioApp(app);
  await app.listen(config.ports.studio, config.host);
  app.get(Logger).log(`studio listening on ${config.host}:${config.ports.studio} (embed origin ${config.publicEmbedOrigin})`);
}

void main();
