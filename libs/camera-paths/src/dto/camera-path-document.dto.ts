import { UserText } from '@app/core';
import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  Equals,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { CAMERA_PATH_LIMITS } from '../camera-path-limits';
import { IsoDateTime, NumberIn, NumberRange, NumberTuple } from './number-rules';

/**
 * The camera path file, `scene-studio.camera-path` format version 1, validated field by field
 * (docs/camera-paths.md, "The file"). What one field cannot say alone — `t` ascending, unit
 * quaternions, a duration that covers the content, what a view and a path hold — is checked
 * after these, in `camera-path-rules.ts`. Unknown fields are refused at every level.
 */

export const KEYFRAME_EASINGS = ['linear', 'ease-in', 'ease-out', 'ease-in-out', 'hold'] as const;
export type KeyframeEasing = (typeof KEYFRAME_EASINGS)[number];

type Vec3 = [number, number, number];
type Quaternion = [number, number, number, number];

const required = (property: string) => IsDefined({ message: `${property} is required` });

/**
 * The ranges of a pose's numbers, read by the decorators below and by the samples' plain check
 * (camera-path-samples.ts), so the two cannot drift apart.
 */
export const POSE_RANGES = {
  t: { min: 0, max: CAMERA_PATH_LIMITS.durationMs },
  focalLengthMm: { min: 12, max: 200 },
  focusDistanceM: { min: 0.1, max: 10_000 },
  fNumber: { min: 1, max: 32 },
  rollDeg: { min: -180, max: 180 },
  verticalFovDeg: { min: 0, max: 180, exclusive: true },
} as const satisfies Record<string, NumberRange>;

/** A pose's number: present, and within its range above. */
const PoseNumber = (property: keyof typeof POSE_RANGES) => applyDecorators(required(property), NumberIn(property, POSE_RANGES[property]));

/** Positions are in metres, within ±100 km of the origin. */
export const POSITION_BOUND_M = 100_000;

/** What samples and keyframes share: where the camera is, where it looks, and its lens. */
export class CameraPoseDto {
  @PoseNumber('t')
  t: number;

  @required('position')
  @NumberTuple('position', 3, POSITION_BOUND_M)
  position: Vec3;

  @required('quaternion')
  @NumberTuple('quaternion', 4)
  quaternion: Quaternion;

  @PoseNumber('focalLengthMm')
  focalLengthMm: number;

  @PoseNumber('focusDistanceM')
  focusDistanceM: number;

  @PoseNumber('fNumber')
  fNumber: number;

  @PoseNumber('rollDeg')
  rollDeg: number;
}

export class CameraPathSampleDto extends CameraPoseDto {
  @PoseNumber('verticalFovDeg')
  verticalFovDeg: number;
}

export class CameraPathKeyframeDto extends CameraPoseDto {
  @required('easing')
  @IsIn(KEYFRAME_EASINGS, { message: `easing must be one of ${KEYFRAME_EASINGS.join(', ')}`, context: { code: 'invalid_value' } })
  easing: KeyframeEasing;
}

export class CameraPathMarkerDto {
  @PoseNumber('t')
  t: number;

  @required('label')
  @IsString({ message: 'label must be a string' })
  @UserText({ min: 0, max: CAMERA_PATH_LIMITS.markerLabelLength })
  label: string;

  @required('position')
  @NumberTuple('position', 3, POSITION_BOUND_M)
  position: Vec3;

  @required('quaternion')
  @NumberTuple('quaternion', 4)
  quaternion: Quaternion;
}

export class CameraPathVideoDto {
  /** The take's video type, `""` for an authored move: printable ASCII, as a media type is. */
  @required('mimeType')
  @IsString({ message: 'mimeType must be a string' })
  @MaxLength(255, { message: 'mimeType must be at most 255 characters long', context: { code: 'too_long' } })
  @Matches(/^[\x20-\x7e]*$/, { message: 'mimeType must be printable ASCII', context: { code: 'invalid_characters' } })
  mimeType: string;

  /** The frame's width over height: from 9:16 portrait to beyond 2.39:1 scope, with room. */
  @required('aspect')
  @NumberIn('aspect', { min: 0.1, max: 10 })
  aspect: number;
}

export class CameraPathSensorDto {
  @required('widthMm')
  @NumberIn('widthMm', { min: 1, max: 100 })
  widthMm: number;

  @required('heightMm')
  @NumberIn('heightMm', { min: 1, max: 100 })
  heightMm: number;

  @required('filmGaugeMm')
  @NumberIn('filmGaugeMm', { min: 1, max: 100 })
  filmGaugeMm: number;
}

const nested = (property: string) =>
  applyDecorators(
    IsObject({ message: `${property} must be an object`, context: { code: 'invalid_type' } }),
    ValidateNested({ message: `${property} must be an object`, context: { code: 'invalid_type' } }),
  );

const list = (property: string, max: number) =>
  applyDecorators(
    IsArray({ message: `${property} must be an array`, context: { code: 'invalid_type' } }),
    ArrayMaxSize(max, { message: `${property} must hold at most ${max} items`, context: { code: 'too_many' } }),
    ValidateNested({ each: true, message: `each item of ${property} must be an object`, context: { code: 'invalid_type' } }),
  );

export class CameraPathDocumentDto {
  @required('format')
  @Equals('scene-studio.camera-path', { message: 'format must be "scene-studio.camera-path"', context: { code: 'invalid_value' } })
  format: 'scene-studio.camera-path';

  @required('formatVersion')
  @Equals(1, { message: 'formatVersion must be 1', context: { code: 'invalid_value' } })
  formatVersion: 1;

  /** The scene version it was made on, or null: present either way. */
  @ValidateIf((o: CameraPathDocumentDto) => o.sceneVersion !== null)
  @required('sceneVersion')
  @IsInt({ message: 'sceneVersion must be a whole number or null', context: { code: 'invalid_type' } })
  @Min(1, { message: 'sceneVersion must be at least 1', context: { code: 'too_small' } })
  @Max(2_147_483_647, { message: 'sceneVersion is too large', context: { code: 'too_large' } })
  sceneVersion: number | null;

  @required('recordedAt')
  @IsString({ message: 'recordedAt must be a string' })
  @IsoDateTime('recordedAt')
  recordedAt: string;

  @required('durationMs')
  @NumberIn('durationMs', { min: 0, max: CAMERA_PATH_LIMITS.durationMs })
  durationMs: number;

  @required('video')
  @nested('video')
  @Type(() => CameraPathVideoDto)
  video: CameraPathVideoDto;

  @required('coordinateSystem')
  @Equals('gltf', { message: 'coordinateSystem must be "gltf"', context: { code: 'invalid_value' } })
  coordinateSystem: 'gltf';

  @required('sensor')
  @nested('sensor')
  @Type(() => CameraPathSensorDto)
  sensor: CameraPathSensorDto;

  @required('samples')
  @list('samples', CAMERA_PATH_LIMITS.samples)
  @Type(() => CameraPathSampleDto)
  samples: CameraPathSampleDto[];

  @required('markers')
  @list('markers', CAMERA_PATH_LIMITS.markers)
  @Type(() => CameraPathMarkerDto)
  markers: CameraPathMarkerDto[];

  /** Optional, but never null: absent means "no keyframes" (a take). */
  @ValidateIf((o: CameraPathDocumentDto) => o.keyframes !== undefined)
  @list('keyframes', CAMERA_PATH_LIMITS.keyframes)
  @Type(() => CameraPathKeyframeDto)
  keyframes?: CameraPathKeyframeDto[];

  @ValidateIf((o: CameraPathDocumentDto) => o.smoothing !== undefined)
  @required('smoothing')
  @NumberIn('smoothing', { min: 0, max: 1 })
  smoothing?: number;
}
