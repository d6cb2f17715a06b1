import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SceneArtifactEntity, SceneEntity, SceneVersionEntity } from './scene.entity';
import { ScenesRepository } from './scenes.repository';

/**
 * The scenes' repository, for this lib's own module only: index.ts does not export it and
 * ScenesModule does not re-export it, so another lib asks a service (ScenesService, SceneStore)
 * and never reaches the scenes' tables.
 */
@Module({
  imports: [TypeOrmModule.forFeature([SceneEntity, SceneVersionEntity, SceneArtifactEntity])],
  providers: [ScenesRepository],
  exports: [ScenesRepository],
})
export class ScenesDataModule {}
