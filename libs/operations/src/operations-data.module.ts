import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdmissionRepository } from './admission.repository';
import { OperationEntity } from './operation.entity';
import { OperationsRepository } from './operations.repository';
import { AdmissionTurnEntity } from './admission-turn.entity';
import { ProviderErasureEntity } from './provider-erasure.entity';
import { ProviderErasuresRepository } from './provider-erasures.repository';

/**
 * The operations' repositories, shared by this lib's own modules only: index.ts does not export it
 * and OperationsModule does not re-export it, so no other lib reaches the operations' tables.
 */
@Module({
  imports: [TypeOrmModule.forFeature([OperationEntity, AdmissionTurnEntity, ProviderErasureEntity])],
  providers: [OperationsRepository, AdmissionRepository, ProviderErasuresRepository],
  exports: [OperationsRepository, AdmissionRepository, ProviderErasuresRepository],
})
export class OperationsDataModule {}
