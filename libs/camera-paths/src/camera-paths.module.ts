import { ScenesModule } from '@app/scenes';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CameraPathEntity } from './camera-path.entity';
import { CameraPathsRepository } from './camera-paths.repository';
import { CameraPathsService } from './camera-paths.service';

/**
 * Saved camera paths, for the studio's routes and, through its scene-deletion hook, for every
 * process that deletes scenes (the api): import it there too, or deleted scenes keep their paths.
 */
@Module({
  imports: [TypeOrmModule.forFeature([CameraPathEntity]), ScenesModule],
  providers: [CameraPathsRepository, CameraPathsService],
  exports: [CameraPathsService],
})
export class CameraPathsModule {}
