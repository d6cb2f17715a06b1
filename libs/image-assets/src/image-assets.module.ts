import { TenancyModule } from '@app/tenancy';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ImageAssetEntity } from './image-asset.entity';
import { ImageAssetErasure } from './image-asset-erasure';
import { ImageAssetsRepository } from './image-assets.repository';
import { ImageAssetsService } from './image-assets.service';
import { ImageAssetsSweeper } from './image-assets.sweeper';
import { ImageMedia } from './media/image-media';
import { SharpImageMedia } from './media/sharp-image-media';

@Module({
  imports: [TypeOrmModule.forFeature([ImageAssetEntity]), TenancyModule],
  providers: [
    ImageAssetsRepository,
    ImageAssetsService,
    ImageAssetsSweeper,
    ImageAssetErasure,
    { provide: ImageMedia, useClass: SharpImageMedia },
  ],
  exports: [ImageAssetsService, ImageAssetErasure, ImageMedia],
})
export class ImageAssetsModule {}
