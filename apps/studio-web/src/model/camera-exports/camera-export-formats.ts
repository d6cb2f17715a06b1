import type { CameraExportInput } from './camera-export.types';
import { writeCameraFramesJson } from './frames-json.writer';
import { writeGltfCamera } from './gltf-camera.writer';
import { writeNukeChan } from './nuke-chan.writer';
import { writeUsdCamera } from './usd-camera.writer';

export const CAMERA_EXPORT_FORMATS = [
  { id: 'usd', label: 'USD camera (.usda)', suffix: '.usda', mimeType: 'model/vnd.usda' },
  { id: 'gltf', label: 'glTF camera (.glb)', suffix: '.glb', mimeType: 'model/gltf-binary' },
  { id: 'json-opengl', label: 'Per-frame JSON, OpenGL axes', suffix: '.opengl.json', mimeType: 'application/json' },
  { id: 'json-opencv', label: 'Per-frame JSON, OpenCV axes', suffix: '.opencv.json', mimeType: 'application/json' },
  { id: 'nuke-chan', label: 'Nuke channel file (.chan)', suffix: '.chan', mimeType: 'text/plain' },
] as const;

export type CameraExportFormatId = (typeof CAMERA_EXPORT_FORMATS)[number]['id'];

export interface CameraExportFile {
  format: CameraExportFormatId;
  fileName: string;
  mimeType: string;
  bytes: Uint8Array<ArrayBuffer>;
}

/** One export file: the writer for `format`, its bytes, and its name from `baseName`. */
export function cameraExportFile(
  format: CameraExportFormatId,
  input: CameraExportInput,
  options: { baseName: string; image: { width: number; height: number } },
): CameraExportFile {
  const preset = CAMERA_EXPORT_FORMATS.find((f) => f.id === format);
  if (!preset) throw new Error(`Unknown camera export format: ${format}`);
  const text = (s: string) => new TextEncoder().encode(s);
  const bytes =
    format === 'usd'
      ? text(writeUsdCamera(input))
      : format === 'gltf'
        ? writeGltfCamera(input)
        : format === 'nuke-chan'
          ? text(writeNukeChan(input))
          : text(writeCameraFramesJson(input, format === 'json-opencv' ? 'opencv' : 'opengl', options.image));
  return { format, fileName: `${options.baseName}${preset.suffix}`, mimeType: preset.mimeType, bytes };
}
