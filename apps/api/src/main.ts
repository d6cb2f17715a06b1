import 'reflect-metadata';
import { createFastifyAdapter, exitOnConfigError, loadConfig } from '@app/core';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { configureApiApp } from './api.app';
import { ApiModule } from './api.module';

async function main(): Promise<void> {
  const config = exitOnConfigError(() => loadConfig());
  const app = await NestFactory.create<NestFastifyApplication>(ApiModule.forRoot({ config }), createFastifyAdapter(), {
    bufferLogs: true,
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  await configureApiApp(app);
  await app.listen(config.ports.api, config.host);
  app.get(Logger).log(`api listening on ${config.host}:${config.ports.api} (public URL ${config.publicApiUrl})`);
}

void main();
