import type { AspectId, SensorId } from './lens';
/**
 * The lens as undo and redo see it: focal length, focus distance, aperture and the frame
 * (sensor, aspect). Pure: read from the rig and applied to it by the perform workflow.
 */
export interface LensState {
  focalLengthMm: number;
  focusDistanceM: number;
  fNumber: number;
  sensor: SensorId;
  aspect: AspectId;
}

export interface LensChange {
  /** "Focal length 50 mm", "Aperture f/4 and focus distance 3.2 m". */
  label: string;
  /** The fields that changed, joined: edits of the same fields in a quick run merge. */
  mergeKey: string;
}

const FIELDS: readonly (keyof LensState)[] = ['focalLengthMm', 'focusDistanceM', 'fNumber', 'sensor', 'aspect'];

/** What changed from `before` to `after` in words, or null when nothing did. */
export function describeLensChange(before: LensState, after: LensState): LensChange | null {
  const changed = FIELDS.filter((f) => before[f] !== after[f]);
  if (changed.length === 0) return null;
  const words = changed.map((f) => describeField(f, after));
  const label = words.length === 1 ? words[0] : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
  return { label: label.charAt(0).toUpperCase() + label.slice(1), mergeKey: `lens:${changed.join('+')}` };
}

function describeField(field: keyof LensState, lens: LensState): string {
  switch (field) {
    case 'focalLengthMm':
      return `focal length ${formatNumber(lens.focalLengthMm)} mm`;
    case 'focusDistanceM':
      return `focus distance ${lens.focusDistanceM < 10 ? lens.focusDistanceM.toFixed(1) : Math.round(lens.focusDistanceM)} m`;
    case 'fNumber':
      return `aperture f/${formatNumber(lens.fNumber)}`;
    case 'sensor':
      return `sensor ${lens.sensor}`;
    case 'aspect':
      return `aspect ratio ${lens.aspect}`;
  }
}

function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
