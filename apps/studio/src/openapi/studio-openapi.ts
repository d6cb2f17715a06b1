import { HealthController } from '@app/core';
import { ARTIFACT_KINDS } from '@app/generation';
import { INestApplication } from '@nestjs/common';
import { ApiExcludeController, DocumentBuilder, getSchemaPath, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { CAMERA_PATH_KINDS, CAMERA_PATH_LIMITS, cameraPathDocumentJsonSchema } from '@scene-studio/camera-path';
import { STUDIO_ERROR_TABLE } from '../studio-errors';

// The probes are for load balancers, not the studio page (core's HealthController says why it is
// not decorated there).
ApiExcludeController()(HealthController);

type Schema = Record<string, unknown>;

/** `{ $ref }` to one of STUDIO_SCHEMAS, for the controllers' response decorators. */
export const studioSchema = (name: keyof typeof STUDIO_SCHEMAS) => ({ $ref: getSchemaPath(name) });

const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type, 'null'] });
const dateTime = { type: 'string', format: 'date-time' };
const SAFE_ERROR = { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } };
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * The studio API's answers (docs/embed.md, docs/camera-paths.md), in one place: the OpenAPI
 * document the studio page's types are generated from (`npm run studio-api:generate`). The
 * camera-path document is the format's own schema (packages/camera-path).
 */
export const STUDIO_SCHEMAS = {
  StudioTheme: {
    type: 'object',
    required: ['partnerName', 'accentColor', 'colorScheme', 'helpText'],
    properties: {
      partnerName: { type: ['string', 'null'] },
      accentColor: { type: 'string' },
      colorScheme: { type: 'string', enum: ['dark', 'light'] },
      helpText: { type: ['string', 'null'] },
    },
  },
  SafeError: SAFE_ERROR,
  SceneState: {
    type: 'object',
    required: ['status', 'version', 'hasSourceImage'],
    properties: {
      status: { type: 'string', enum: ['generating', 'ready', 'failed'] },
      version: nullable({ type: 'integer' }),
      hasSourceImage: { type: 'boolean' },
      error: { description: 'Why the scene failed, when it did.', oneOf: [ref('SafeError'), { type: 'null' }] },
      progress: { description: '0..1 while generating, when the provider reports it.', type: ['number', 'null'] },
      stage: { type: ['string', 'null'], enum: ['queued', 'generating', 'downloading', 'storing', null] },
    },
  },
  StudioSession: {
    type: 'object',
    required: ['embedSessionId', 'mode', 'origin', 'expiresAt', 'theme', 'capabilities', 'scene'],
    properties: {
      embedSessionId: { type: 'string' },
      mode: { type: 'string', enum: ['edit', 'perform', 'edit_and_perform'] },
      origin: { type: 'string' },
      expiresAt: dateTime,
      theme: ref('StudioTheme'),
      capabilities: {
        type: 'object',
        required: ['edit', 'perform'],
        properties: { edit: { type: 'boolean' }, perform: { type: 'boolean' } },
      },
      scene: ref('SceneState'),
    },
  },
  SceneArtifactInfo: {
    type: 'object',
    required: ['kind', 'contentType', 'bytes', 'sha256'],
    properties: {
      kind: { type: 'string', enum: [...ARTIFACT_KINDS] },
      contentType: { type: 'string' },
      bytes: { type: 'integer' },
      sha256: { type: 'string' },
    },
  },
  SceneArtifacts: {
    type: 'object',
    required: ['version', 'artifacts'],
    properties: { version: { type: 'integer' }, artifacts: { type: 'array', items: ref('SceneArtifactInfo') } },
  },
  EditTurn: {
    type: 'object',
    required: ['operationId', 'instruction', 'revertTo', 'status', 'version', 'error', 'createdAt', 'completedAt'],
    properties: {
      operationId: { type: 'string' },
      instruction: { type: 'string' },
      revertTo: { description: 'A revert\u2019s restored version; null for an edit.', type: ['integer', 'null'] },
      status: { type: 'string', enum: ['processing', 'succeeded', 'failed'] },
      version: { type: ['integer', 'null'] },
      error: { oneOf: [ref('SafeError'), { type: 'null' }] },
      createdAt: dateTime,
      completedAt: { type: ['string', 'null'], format: 'date-time' },
    },
  },
  EditTurns: { type: 'object', required: ['turns'], properties: { turns: { type: 'array', items: ref('EditTurn') } } },
  CreatedEdit: {
    type: 'object',
    required: ['operationId', 'status', 'createdAt'],
    properties: { operationId: { type: 'string' }, status: { type: 'string', const: 'processing' }, createdAt: dateTime },
  },
  CameraPathDocument: cameraPathDocumentJsonSchema(),
  CameraPathSummary: {
    type: 'object',
    required: ['cameraPathId', 'kind', 'name', 'durationMs', 'keyframeCount', 'sampleCount', 'createdAt', 'updatedAt'],
    properties: {
      cameraPathId: { type: 'string' },
      kind: { type: 'string', enum: [...CAMERA_PATH_KINDS] },
      name: { type: 'string' },
      durationMs: { type: 'number' },
      keyframeCount: { type: 'integer' },
      sampleCount: { type: 'integer' },
      createdAt: dateTime,
      updatedAt: dateTime,
    },
  },
  CameraPathList: {
    type: 'object',
    required: ['cameraPaths'],
    properties: { cameraPaths: { type: 'array', items: ref('CameraPathSummary') } },
  },
  SavedCameraPath: {
    type: 'object',
    required: ['cameraPathId', 'kind', 'name', 'document', 'createdAt', 'updatedAt'],
    properties: {
      cameraPathId: { type: 'string' },
      kind: { type: 'string', enum: [...CAMERA_PATH_KINDS] },
      name: { type: 'string' },
      document: ref('CameraPathDocument'),
      createdAt: dateTime,
      updatedAt: dateTime,
    },
  },
  UpdateCameraPath: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'document'],
    properties: { name: { type: 'string', minLength: 1, maxLength: CAMERA_PATH_LIMITS.nameLength }, document: ref('CameraPathDocument') },
  },
  CreateCameraPath: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'name', 'document'],
    properties: {
      kind: { type: 'string', enum: [...CAMERA_PATH_KINDS] },
      name: { type: 'string', minLength: 1, maxLength: CAMERA_PATH_LIMITS.nameLength },
      document: ref('CameraPathDocument'),
    },
  },
  Problem: {
    type: 'object',
    description: 'RFC 9457 problem details; `reason` says why a session ended (`expired`, `revoked`).',
    required: ['type', 'title', 'status', 'code', 'detail'],
    properties: {
      type: { type: 'string' },
      title: { type: 'string' },
      status: { type: 'integer' },
      // Every code the studio can answer: core's and those of the libs it serves (studio-errors.ts).
      code: { type: 'string', enum: STUDIO_ERROR_TABLE.codes() },
      detail: { type: 'string' },
      reason: { type: 'string', enum: ['expired', 'revoked'] },
      errors: {
        type: 'array',
        items: {
          type: 'object',
          required: ['field', 'code', 'message'],
          properties: { field: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } },
        },
      },
    },
  },
} as const satisfies Record<string, Schema>;

/**
 * The studio API's OpenAPI 3.1 document: its routes from the controllers (apps/studio/src/api),
 * its answers from STUDIO_SCHEMAS. The studio page's client types are generated from it
 * (scripts/generate-studio-api-types.js); a drift test holds the two equal.
 */
export function buildStudioOpenApiDocument(app: INestApplication): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Scene Studio studio API')
    .setDescription('The studio page\u2019s own API, scoped to one embed session by its secret (docs/embed.md). Not a partner API.')
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'The embed session\u2019s secret.' }, 'sessionSecret')
    .addSecurityRequirements('sessionSecret')
    .build();
  const document = SwaggerModule.createDocument(app, builder, {
    operationIdFactory: (controllerKey, methodKey) => `${controllerKey.replace(/Controller$/, '')}_${methodKey}`,
  });
  document.components = document.components ?? {};
  document.components.schemas = { ...(document.components.schemas ?? {}), ...(STUDIO_SCHEMAS as Record<string, object>) };
  return document;
}
