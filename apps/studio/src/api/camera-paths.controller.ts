import {
  CameraPathScope,
  CameraPathsService,
  CameraPathSummary,
  CreateCameraPathDto,
  ListCameraPathsQuery,
  SavedCameraPath,
  UpdateCameraPathDto,
  CameraPathIdPrefix,
} from '@app/camera-paths';
import { JsonBodyGuard, ParseIdPipe } from '@app/core';
import { SessionWithScene } from '@app/embed-sessions';
import { Controller, Delete, Get, HttpCode, Param, Post, Put, Query, UseGuards, UseInterceptors } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { CAMERA_PATH_KINDS } from '@scene-studio/camera-path';
import { studioSchema } from '../openapi/studio-openapi';
import { CameraPathBodyReader } from './camera-path-body';
import { CameraPathBody } from './camera-path-body.pipe';
import { RequiresCapability, StudioSession, StudioSessionGuard } from './studio-session.guard';
import { StudioWriteBudgetGuard } from './studio-write-budget.guard';

const CAMERA_PATH_ID = new ParseIdPipe(CameraPathIdPrefix.CameraPath);

/** The session's organization and scene: the only paths it can reach. */
const scopeOf = ({ session }: SessionWithScene): CameraPathScope => ({ organizationId: session.organizationId, sceneId: session.sceneId });

/**
 * Camera paths saved per scene (docs/camera-paths.md): every perform session of the scene sees
 * the same list. Writes spend the session's STUDIO_WRITES_PER_MINUTE (StudioWriteBudgetGuard),
 * then take a write slot and read their bodies, up to 8 MiB (camera-path-body.ts), validated by
 * their DTOs (camera-path-body.pipe.ts); answers are never cached.
 */
@ApiTags('studio')
@Controller('studio-api/v1/camera-paths')
@UseGuards(StudioSessionGuard, StudioWriteBudgetGuard)
export class CameraPathsController {
  constructor(private readonly paths: CameraPathsService) {}

  @Get()
  @ApiQuery({ name: 'kind', required: false, enum: CAMERA_PATH_KINDS })
  @ApiOkResponse({ schema: studioSchema('CameraPathList') })
  @RequiresCapability('perform')
  async list(
    @StudioSession() found: SessionWithScene,
    @Query() query: ListCameraPathsQuery,
  ): Promise<{ cameraPaths: CameraPathSummary[] }> {
    return { cameraPaths: await this.paths.list(scopeOf(found), query.kind) };
  }

  @Post()
  @HttpCode(201)
  @ApiBody({ schema: studioSchema('CreateCameraPath') })
  @ApiCreatedResponse({ schema: studioSchema('SavedCameraPath') })
  @RequiresCapability('perform')
  @UseGuards(JsonBodyGuard)
  @UseInterceptors(CameraPathBodyReader)
  create(@StudioSession() found: SessionWithScene, @CameraPathBody() dto: CreateCameraPathDto): Promise<SavedCameraPath> {
    return this.paths.create(scopeOf(found), dto);
  }

  @Get(':cameraPathId')
  @ApiOkResponse({ schema: studioSchema('SavedCameraPath') })
  @RequiresCapability('perform')
  get(@StudioSession() found: SessionWithScene, @Param('cameraPathId', CAMERA_PATH_ID) id: string): Promise<SavedCameraPath> {
    return this.paths.get(scopeOf(found), id);
  }

  @Put(':cameraPathId')
  @ApiBody({ schema: studioSchema('UpdateCameraPath') })
  @ApiOkResponse({ schema: studioSchema('SavedCameraPath') })
  @RequiresCapability('perform')
  @UseGuards(JsonBodyGuard)
  @UseInterceptors(CameraPathBodyReader)
  update(
    @StudioSession() found: SessionWithScene,
    @Param('cameraPathId', CAMERA_PATH_ID) id: string,
    @CameraPathBody() dto: UpdateCameraPathDto,
  ): Promise<SavedCameraPath> {
    return this.paths.update(scopeOf(found), id, dto);
  }

  @Delete(':cameraPathId')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted, or already gone.' })
  @RequiresCapability('perform')
  async remove(@StudioSession() found: SessionWithScene, @Param('cameraPathId', CAMERA_PATH_ID) id: string): Promise<void> {
    await this.paths.remove(scopeOf(found), id);
  }
}
