import { assertExportable, num, rotationMatrix, type CameraExportInput } from './camera-export.types';

/**
 * USD's lens and filmback attributes (focalLength, the apertures) are in tenths of a scene unit
 * (UsdGeomCamera, "Units of Measure for Camera Properties"); the stage is in metres
 * (metersPerUnit = 1), so a tenth of a unit is 100 mm and 50 mm is written 0.5. Distances
 * (focusDistance, clippingRange, the transform) are in plain scene units: metres.
 */
const MM_PER_TENTH_OF_A_METRE = 100;

export const USD_CAMERA_PATH = '/Camera';

/**
 * The move as a USD ASCII layer (.usda): one `Camera` prim, its transform and lens sampled at every
 * frame (time code = frame index, `timeCodesPerSecond` = the frame rate), the stage in metres and
 * +Y up. USD cameras look down their local −Z with +Y up, as the studio's do: the camera-to-world
 * matrix goes in as is (USD writes matrices row-major with row vectors: the rows are the camera's
 * axes in the world, then its position).
 */
export function writeUsdCamera(input: CameraExportInput): string {
  assertExportable(input);
  const { frames, sensor, fps, clipping } = input;
  const last = frames.length - 1;
  const samples = (value: (i: number) => string) => frames.map((_, i) => `        ${i}: ${value(i)},`).join('\n');
  const tenths = (mm: number) => num(mm / MM_PER_TENTH_OF_A_METRE, 8);
  const matrix = (i: number) => {
    const f = frames[i];
    const m = rotationMatrix(f.quaternion);
    const row = (c: number) => `(${num(m[0][c], 9)}, ${num(m[1][c], 9)}, ${num(m[2][c], 9)}, 0)`;
    const [x, y, z] = f.position;
    return `( ${row(0)}, ${row(1)}, ${row(2)}, (${num(x)}, ${num(y)}, ${num(z)}, 1) )`;
  };
  return `#usda 1.0
(
    defaultPrim = "Camera"
    doc = "Scene Studio camera export"
    metersPerUnit = 1
    upAxis = "Y"
    timeCodesPerSecond = ${num(fps)}
    framesPerSecond = ${num(fps)}
    startTimeCode = 0
    endTimeCode = ${last}
)

def Camera "Camera"
{
    token projection = "perspective"
    float horizontalAperture = ${tenths(sensor.widthMm)}
    float verticalAperture = ${tenths(sensor.heightMm)}
    float2 clippingRange = (${num(clipping.near)}, ${num(clipping.far)})
    float focalLength.timeSamples = {
${samples((i) => tenths(frames[i].focalLengthMm))}
    }
    float focusDistance.timeSamples = {
${samples((i) => num(frames[i].focusDistanceM))}
    }
    float fStop.timeSamples = {
${samples((i) => num(frames[i].fStop))}
    }
    matrix4d xformOp:transform.timeSamples = {
${samples(matrix)}
    }
    uniform token[] xformOpOrder = ["xformOp:transform"]
}
`;
}
