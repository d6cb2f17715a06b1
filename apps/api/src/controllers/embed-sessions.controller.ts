import { JsonBodyGuard, ParseIdPipe } from '@app/core';
import {
  CreateEmbedSessionDto,
  EmbedSessionResponse,
  EmbedSessionsService,
  ExtendedEmbedSessionResponse,
  ExtendEmbedSessionDto,
  EmbedSessionIdPrefix,
} from '@app/embed-sessions';
import { Principal } from '@app/organizations';
import { Body, Controller, Delete, Header, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { TestOrganizationsOnlyGuard } from '../auth/test-organizations-only.guard';
import { ApiIdParam } from '../openapi/api-id-param.decorator';
import { ApiProblems } from '../openapi/api-problems.decorator';

@ApiTags('Embed sessions')
@Controller('v1/embed-sessions')
export class EmbedSessionsController {
  constructor(private readonly sessions: EmbedSessionsService) {}

  @Post()
  @HttpCode(201)
  @UseGuards(JsonBodyGuard)
  // The answer holds a bearer secret: no cache, shared or private, may keep it.
  @Header('cache-control', 'private, no-store')
  @ApiOperation({
    summary: 'Issue an embed session',
    description:
      'A secret URL for an iframe that shows the studio for one scene, in one immutable mode, framed only by `origin`. ' +
      'The URL is returned by this call alone; its secret is in the fragment. Deliver it to the browser only through an ' +
      'authenticated response with `Cache-Control: private, no-store`, and never log it.',
  })
  @ApiCreatedResponse({
    type: EmbedSessionResponse,
    headers: { 'Cache-Control': { schema: { type: 'string', example: 'private, no-store' } } },
  })
  @ApiProblems({
    400: '`invalid_json`.',
    404: 'The scene is unknown, deleted or not yours (`not_found`).',
    413: 'Body over 64 KiB (`payload_too_large`).',
    415: 'Not application/json (`unsupported_media_type`).',
    422: '`validation_failed` or `origin_not_allowed`.',
  })
  create(@Body() dto: CreateEmbedSessionDto, @CurrentPrincipal() principal: Principal): Promise<EmbedSessionResponse> {
    return this.sessions.create(principal, dto);
  }

  @Delete(':embedSessionId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Revoke an embed session',
    description:
      "204 for every syntactically valid id — active, expired, revoked, unknown or another organization's. After it the URL no longer works.",
  })
  @ApiIdParam('embedSessionId', EmbedSessionIdPrefix.EmbedSession)
  @ApiNoContentResponse({ description: 'Revoked, or nothing to revoke.' })
  @ApiProblems({ 400: '`invalid_id`.' })
  async revoke(
    @Param('embedSessionId', new ParseIdPipe(EmbedSessionIdPrefix.EmbedSession)) id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<void> {
    await this.sessions.revoke(principal.organizationId, id);
  }

  // AIP-136's custom method: the colon is part of the path, escaped for Express's router.
  @Post(':embedSessionId\\:extend')
  @HttpCode(200)
  @UseGuards(JsonBodyGuard)
  @ApiOperation({
    summary: 'Extend an embed session',
    description:
      'A new expiry, `expiresInSeconds` (300 to 86400) from now, for an active session. The URL stays the same; open studios learn ' +
      "the new expiry by server push, without a reload. Expired, revoked, unknown and other organizations' sessions are `404`.",
  })
  @ApiIdParam('embedSessionId', EmbedSessionIdPrefix.EmbedSession)
  @ApiOkResponse({ type: ExtendedEmbedSessionResponse })
  @ApiProblems({
    400: '`invalid_json` or `invalid_id`.',
    404: 'Unknown, expired, revoked or not yours (`not_found`).',
    413: 'Body over 64 KiB (`payload_too_large`).',
    415: 'Not application/json (`unsupported_media_type`).',
    422: '`validation_failed`.',
  })
  extend(
    @Param('embedSessionId', new ParseIdPipe(EmbedSessionIdPrefix.EmbedSession)) id: string,
    @Body() dto: ExtendEmbedSessionDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ExtendedEmbedSessionResponse> {
    return this.sessions.extend(principal.organizationId, id, dto);
  }

  // Test mode's clock (docs/api.md, "Testing your integration").
  @Post(':embedSessionId\\:expire')
  @HttpCode(200)
  @UseGuards(TestOrganizationsOnlyGuard)
  @ApiOperation({
    summary: 'Expire an embed session now (test mode)',
    description:
      'Test organizations only. An active session expires now, as if its time had run out: its URL stops working, open studios ' +
      'show the ended page (`session.ended`, reason `expired`) and `embed_session.ended` (reason `expired`) is sent once. No body. ' +
      "Expired, revoked, unknown and other organizations' sessions are `404`.",
  })
  @ApiIdParam('embedSessionId', EmbedSessionIdPrefix.EmbedSession)
  @ApiOkResponse({ type: ExtendedEmbedSessionResponse, description: 'The session and its expiry, now.' })
  @ApiProblems({
    400: '`invalid_id`.',
    403: "A live organization's key (`test_mode_only`): test mode is for test organizations.",
    404: 'Unknown, expired, revoked or not yours (`not_found`).',
  })
  expire(
    @Param('embedSessionId', new ParseIdPipe(EmbedSessionIdPrefix.EmbedSession)) id: string,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ExtendedEmbedSessionResponse> {
    return this.sessions.expireNow(principal.organizationId, id);
  }
}
