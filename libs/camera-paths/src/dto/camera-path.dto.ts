import { UserText } from '@app/core';
import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { CAMERA_PATH_LIMITS } from '../camera-path-limits';
import { CameraPathDocumentDto } from './camera-path-document.dto';

export const CAMERA_PATH_KINDS = ['path', 'view'] as const;
export type CameraPathKind = (typeof CAMERA_PATH_KINDS)[number];

const kindRule = () => IsIn(CAMERA_PATH_KINDS, { message: 'kind must be path or view', context: { code: 'invalid_value' } });

/** `name` and `document`, as both a new path and a changed one carry them. */
export class UpdateCameraPathDto {
  @IsDefined({ message: 'name is required' })
  @IsString({ message: 'name must be a string' })
  @UserText({ min: 1, max: CAMERA_PATH_LIMITS.nameLength, notBlank: true })
  name: string;

  @IsDefined({ message: 'document is required' })
  @IsObject({ message: 'document must be an object', context: { code: 'invalid_type' } })
  @ValidateNested({ message: 'document must be an object', context: { code: 'invalid_type' } })
  @Type(() => CameraPathDocumentDto)
  document: CameraPathDocumentDto;
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
