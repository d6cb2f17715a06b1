import 'reflect-metadata';
import { exitOnBootFailure } from '@app/core';
import { startStudio } from './studio.server';

startStudio().catch((e: unknown) => exitOnBootFailure('studio', e));
