import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdmissionRepository } from './admission.repository';
import { OperationEntity } from './operation.entity';
import { OperationsRepository } from './operations.repository';
import { AdmissionTurnEntity } from './admission-turn.entity';
import { SceneArtifactEntity, SceneEntity, SceneVersionEntity } from './scene.entity';
import { ScenesRepository } from './scenes.repository';
import { ProviderErasureEntity } from './provider-erasure.entity';
import { ProviderErasuresRepository } from './provider-erasures.repository';

/**
 * The scenes' repositories, shared by this lib's own modules only: index.ts does not export it
 * and ScenesModule does not re-export it, so another lib asks a service (ScenesService.lockForWrite)
 * and never reaches the scenes' tables.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([
      SceneEntity,
      SceneVersionEntity,
      SceneArtifactEntity,
      OperationEntity,
      AdmissionTurnEntity,
      ProviderErasureEntity,
    ]),
  ],
  providers: [ScenesRepository, OperationsRepository, AdmissionRepository, ProviderErasuresRepository],
  exports: [ScenesRepository, OperationsRepository, AdmissionRepository, ProviderErasuresRepository],
})
export class ScenesDataModule {}
