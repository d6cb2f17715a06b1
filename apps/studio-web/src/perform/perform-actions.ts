/** What any input device can ask the studio to do besides moving the camera. */
export interface PerformActions {
  toggleRecording(): void;
  dropMarker(): void;
  toggleNavigation(): void;
  /** Jumps to preset `index`, or to the one after the current when omitted. */
  goToPreset(index?: number): void;
}
