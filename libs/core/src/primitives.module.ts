import { Global, Module } from '@nestjs/common';
import { Clock } from './clock';
import { IdGenerator } from './ids';
import { RandomSource } from './random';

/** The clock, ids and randomness: every service may take them (CoreModule imports this, globally). */
@Global()
@Module({ providers: [Clock, IdGenerator, RandomSource], exports: [Clock, IdGenerator, RandomSource] })
export class PrimitivesModule {}
