import { DomainError, ParseIdPipe } from '@app/core';
import { ExpiredImageAssetResponse, ImageAssetResponse, ImageAssetsService, MAX_UPLOAD_BYTES, ImageAssetIdPrefix } from '@app/image-assets';
import { Principal } from '@app/organizations';
import { Controller, Get, HttpCode, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { TestOrganizationsOnlyGuard } from '../auth/test-organizations-only.guard';
import { ApiIdParam } from '../openapi/api-id-param.decorator';
import { ApiProblems } from '../openapi/api-problems.decorator';
import { UploadReader } from '../uploads/upload-reader';

@ApiTags('Image assets')
@Controller('v1/image-assets')
export class ImageAssetsController {
  constructor(
    private readonly assets: ImageAssetsService,
    private readonly uploads: UploadReader,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Upload a source image',
    description:
      'Validates the bytes (signature, then header dimensions, then a full decode), ignoring the file name and declared type. ' +
      'Width and height are reported as displayed, after the EXIF orientation. Unattached assets expire 24 hours after upload.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file'],
      properties: { file: { type: 'string', format: 'binary', description: 'PNG, JPEG or WebP, at most 20 MiB.' } },
    },
  })
  @ApiCreatedResponse({
    type: ImageAssetResponse,
    headers: {
      Location: { description: 'The new asset: /v1/image-assets/{imageAssetId}', schema: { type: 'string' } },
      'Server-Timing': { description: 'validate;dur=<ms>: server-side validation time.', schema: { type: 'string' } },
    },
  })
  @ApiProblems({
    400: 'Malformed multipart body, or a Content-Type without a well-formed boundary (`bad_request`).',
    413: 'File over 20 MiB (`payload_too_large`).',
    415: 'Not multipart/form-data (`unsupported_media_type`).',
    422: '`validation_failed` (no or several files), `unsupported_image_format`, `image_dimensions_exceeded` or `image_corrupt`.',
  })
  async upload(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ImageAssetResponse> {
    const { asset, validationMs } = await this.uploads.withFile(req, res, principal.organizationId, MAX_UPLOAD_BYTES, (file) =>
      this.assets.upload(principal.organizationId, file),
    );
    res.setHeader('location', `/v1/image-assets/${asset.imageAssetId}`);
    res.setHeader('server-timing', `validate;dur=${validationMs.toFixed(1)}`);
    return asset;
  }

  @Get(':imageAssetId')
  @ApiOperation({ summary: 'Get an image asset', description: "404 once expired, and for another organization's asset." })
  @ApiIdParam('imageAssetId', ImageAssetIdPrefix.ImageAsset)
  @ApiOkResponse({ type: ImageAssetResponse })
  @ApiProblems({ 400: 'Not a syntactically valid id (`invalid_id`).', 404: 'Unknown, expired or not yours (`not_found`).' })
  async get(
    @Param('imageAssetId', new ParseIdPipe(ImageAssetIdPrefix.ImageAsset)) id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ImageAssetResponse> {
    const asset = await this.assets.get(principal.organizationId, id);
    if (!asset) throw DomainError.notFound();
    return asset;
  }

  // Test mode's clock (docs/api.md, "Testing your integration"); AIP-136's custom method.
  @Post(':imageAssetId\\:expire')
  @HttpCode(200)
  @UseGuards(TestOrganizationsOnlyGuard)
  @ApiOperation({
    summary: 'Expire an unattached image asset now (test mode)',
    description:
      'Test organizations only. The asset expires now, as if its 24 hours had passed: `GET` answers 404 and scene creation ' +
      "`source_asset_not_found` from here on. No body. Unknown, expired, attached and other organizations' assets are `404`.",
  })
  @ApiIdParam('imageAssetId', ImageAssetIdPrefix.ImageAsset)
  @ApiOkResponse({ type: ExpiredImageAssetResponse })
  @ApiProblems({
    400: '`invalid_id`.',
    403: "A live organization's key (`test_mode_only`): test mode is for test organizations.",
    404: 'Unknown, expired, attached or not yours (`not_found`).',
  })
  expire(
    @Param('imageAssetId', new ParseIdPipe(ImageAssetIdPrefix.ImageAsset)) id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ExpiredImageAssetResponse> {
    return this.assets.expireNow(principal.organizationId, id);
  }
}
