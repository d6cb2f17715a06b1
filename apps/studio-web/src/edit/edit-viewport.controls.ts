import { ViewportControls } from '../perform/viewport.controls';
import type { PerformActions } from '../perform/perform-actions';
import type { StudioViewport } from '../viewport/studio-viewport';

/** Edit sessions look at the scene; recording, markers, fly mode and presets belong to perform. */
const INSPECT_ONLY: PerformActions = {
  toggleRecording: () => undefined,
  dropMarker: () => undefined,
  toggleNavigation: () => undefined,
  goToPreset: () => undefined,
};

/**
 * Makes the edit viewport one you can walk round: the perform workflow's pointer, wheel and
 * keyboard controls on the same camera rig, held in orbit (drag orbits about the scene, the wheel
 * dollies, arrows and WASD move). Only for sessions without perform, whose workflow already
 * drives the shared viewport. Returns the detach.
 */
export function attachEditViewportControls(viewport: StudioViewport): () => void {
  viewport.rig.setNavigation('orbit');
  // No double-click focus: an edit viewport draws without depth of field.
  const controls = new ViewportControls(viewport.canvas, viewport.rig, INSPECT_ONLY, () => null);
  const detach = viewport.addFrameListener((dt) => controls.update(dt));
  return () => {
    detach();
    controls.dispose();
  };
}
