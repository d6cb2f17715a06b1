import { UserText } from '@app/core';
import { CAMERA_PATH_KINDS, CAMERA_PATH_LIMITS, type CameraPathDocument, type CameraPathKind } from '@scene-studio/camera-path';
import { IsDefined, IsIn, IsObject, IsOptional, IsString } from 'class-validator';

export { CAMERA_PATH_KINDS, type CameraPathKind };

const kindRule = () => IsIn(CAMERA_PATH_KINDS, { message: 'kind must be path or view', context: { code: 'invalid_value' } });

/**
 * `name` and `document`, as both a new path and a changed one carry them. The document's own
 * fields are the camera-path format's (packages/camera-path), checked by CameraPathBodyPipe
 * (apps/studio) with `cameraPathDocumentErrors`: the same rules the studio page imports files by.
 */
export class UpdateCameraPathDto {
  @IsDefined({ message: 'name is required' })
  @IsString({ message: 'name must be a string' })
  @UserText({ min: 1, max: CAMERA_PATH_LIMITS.nameLength, notBlank: true })
  name: string;

  @IsDefined({ message: 'document is required' })
  @IsObject({ message: 'document must be an object', context: { code: 'invalid_type' } })
  document: CameraPathDocument;
}

export class CreateCameraPathDto extends UpdateCameraPathDto {
  @IsDefined({ message: 'kind is required' })
  @kindRule()
  kind: CameraPathKind;
}

export class ListCameraPathsQuery {
  @IsOptional()
  @kindRule()
  kind?: CameraPathKind;
}
