import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OperationEntity } from './operation.entity';
import { OperationsRepository } from './operations.repository';
import { OperationsService } from './operations.service';

@Module({
  imports: [TypeOrmModule.forFeature([OperationEntity])],
  providers: [OperationsRepository, OperationsService],
  exports: [OperationsRepository, OperationsService],
})
export class OperationsModule {}
