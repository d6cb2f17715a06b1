import { ICONS, h, icon } from './dom';

interface Binding {
  keys: string;
  action: string;
}

const KEYBOARD: Binding[] = [
  { keys: 'W A S D', action: 'Move forward, left, back, right' },
  { keys: 'Q / E', action: 'Move down / up' },
  { keys: 'Arrow keys', action: 'Look (fly) or orbit (orbit)' },
  { keys: 'Shift', action: 'Hold to move faster' },
  { keys: '[ / ]  or  − / =', action: 'Shorter / longer focal length' },
  { keys: 'Enter / Escape', action: 'In the focal length box: set the typed focal length / keep the lens in use' },
  { keys: 'Z / C', action: 'Roll left / right' },
  { keys: 'F', action: 'Switch between orbit and fly' },
  { keys: '1 – 9, P', action: 'Camera preset; next preset' },
  { keys: 'R', action: 'Start or stop recording' },
  { keys: 'M', action: 'Drop a marker into the camera path' },
];

/** The timeline (perform panel, "Camera move"); none of these keys is taken by the list above. */
const CAMERA_MOVE: Binding[] = [
  { keys: 'I', action: 'Add a keyframe at the playhead (or update the one there)' },
  { keys: 'L', action: 'Play or pause the camera move' },
  { keys: ', / .', action: 'Go to the previous / next keyframe' },
  { keys: 'Ctrl Z  (⌘ Z on a Mac)', action: 'Undo the last timeline edit or lens change' },
  { keys: 'Shift Ctrl Z  (⇧ ⌘ Z), Ctrl Y', action: 'Redo' },
];

const POINTER: Binding[] = [
  { keys: 'Drag', action: 'Orbit, or look around when flying' },
  { keys: 'Right-drag, Shift-drag', action: 'Pan' },
  { keys: 'Wheel', action: 'Dolly in and out (Alt + wheel: focal length)' },
  { keys: 'Double-click', action: 'Focus on what is under the pointer' },
  { keys: 'One finger', action: 'Orbit or look' },
  { keys: 'Two fingers', action: 'Pinch to dolly, drag to pan' },
];

const GAMEPAD: Binding[] = [
  { keys: 'Left stick', action: 'Move' },
  { keys: 'Right stick', action: 'Look or orbit' },
  { keys: 'Left / right trigger', action: 'Zoom out / in (focal length)' },
  { keys: 'Left / right bumper', action: 'Move down / up' },
  { keys: 'A', action: 'Start or stop recording' },
  { keys: 'X', action: 'Drop a marker' },
  { keys: 'B', action: 'Switch orbit / fly' },
  { keys: 'Y', action: 'Next camera preset' },
  { keys: 'D-pad up / down', action: 'Focus farther / nearer' },
  { keys: 'D-pad left / right', action: 'Open / close the aperture' },
];

const SPACE_MOUSE: Binding[] = [
  { keys: 'Push / pull the cap', action: 'Move in that direction' },
  { keys: 'Tilt forward / back', action: 'Look down / up' },
  { keys: 'Twist', action: 'Turn left / right' },
  { keys: 'Tilt sideways', action: 'Roll' },
  { keys: 'Left / right button', action: 'Switch orbit / fly; drop a marker' },
];

const EDITING: Binding[] = [
  { keys: 'Enter', action: 'Apply the edit (in the instruction box)' },
  { keys: '← / →, Home / End', action: 'Move the compare divider (when it has focus)' },
];

/** Edit sessions without perform orbit the scene to inspect it. */
const ORBIT: Binding[] = [
  { keys: 'Drag, arrow keys', action: 'Orbit the scene' },
  { keys: 'Wheel, two fingers', action: 'Dolly in and out' },
  { keys: 'Right-drag, Shift-drag', action: 'Pan' },
  { keys: 'W A S D, Q / E', action: 'Move' },
];

/**
 * The help panel: the partner's own help text first (plain text, never HTML), then every key,
 * pointer and controller binding the session's capabilities offer.
 */
export class HelpPanel {
  readonly element: HTMLElement;
  private readonly closeButton: HTMLButtonElement;
  private opener: HTMLElement | null = null;

  constructor(
    helpText: string | null,
    capabilities: { edit: boolean; perform: boolean },
    private readonly onToggle: (open: boolean) => void,
  ) {
    this.closeButton = h(
      'button',
      {
        className: 'icon-button',
        attrs: { type: 'button', 'aria-label': 'Close help' },
        on: { click: () => this.close() },
      },
      [icon([...ICONS.close])],
    );

    const sections: HTMLElement[] = [];
    if (helpText) sections.push(h('section', { className: 'help-section' }, [h('p', { className: 'help-partner-text', text: helpText })]));
    if (capabilities.edit) sections.push(bindingSection('Editing', EDITING));
    if (capabilities.edit && !capabilities.perform) sections.push(bindingSection('Viewport', ORBIT));
    if (capabilities.perform) {
      sections.push(
        bindingSection('Keyboard', KEYBOARD),
        bindingSection('Camera move', CAMERA_MOVE),
        bindingSection('Mouse and touch', POINTER),
        bindingSection('Gamepad', GAMEPAD),
        bindingSection('3D mouse', SPACE_MOUSE),
      );
    }

    this.element = h(
      'div',
      {
        className: 'help-panel',
        attrs: { id: 'help-panel', role: 'dialog', 'aria-modal': 'false', 'aria-labelledby': 'help-title', hidden: true },
        on: {
          keydown: (event) => {
            if (event.key === 'Escape') {
              event.stopPropagation();
              this.close();
            }
          },
        },
      },
      [
        h('div', { className: 'help-header' }, [
          h('h2', { className: 'help-title', text: 'Help', attrs: { id: 'help-title' } }),
          this.closeButton,
        ]),
        h('div', { className: 'help-body' }, sections),
      ],
    );
  }

  get isOpen(): boolean {
    return !this.element.hidden;
  }

  toggle(opener: HTMLElement): void {
    if (this.isOpen) this.close();
    else this.open(opener);
  }

  open(opener: HTMLElement): void {
    this.opener = opener;
    this.element.hidden = false;
    this.onToggle(true);
    this.closeButton.focus();
  }

  close(): void {
    if (!this.isOpen) return;
    this.element.hidden = true;
    this.onToggle(false);
    this.opener?.focus();
  }
}

function bindingSection(title: string, bindings: Binding[]): HTMLElement {
  return h('section', { className: 'help-section' }, [
    h('h3', { className: 'help-section-title', text: title }),
    h(
      'dl',
      { className: 'bindings' },
      bindings.flatMap((b) => [h('dt', {}, [h('kbd', { text: b.keys })]), h('dd', { text: b.action })]),
    ),
  ]);
}
