import { ICONS, h, icon } from '../ui/dom';
import { CAMERA_EXPORT_FORMATS, type CameraExportFormatId } from '../model/camera-exports/camera-export-formats';

export interface CameraExportHooks {
  exportCamera(format: CameraExportFormatId): void;
}

/**
 * The Render section's camera export: a format and a button. It exports the camera of the move
 * the Source select names, at the frame rate chosen for the render (and, for the per-frame JSON,
 * its resolution): the camera of every frame a render with those settings draws. Framed, the
 * file goes to the page around the studio (the sandbox has no downloads); opened on its own, a
 * link offers it here.
 */
export class CameraExportView {
  readonly element: HTMLElement;
  private readonly format: HTMLSelectElement;
  private readonly button: HTMLButtonElement;
  private readonly download = h('a', { className: 'button button-small', attrs: { id: 'camera-export-download', hidden: true } });

  constructor(hooks: CameraExportHooks, framed: boolean) {
    this.format = h(
      'select',
      { className: 'select', attrs: { id: 'camera-export-format' } },
      CAMERA_EXPORT_FORMATS.map((f) => h('option', { attrs: { value: f.id }, text: f.label })),
    );
    this.button = h(
      'button',
      {
        className: 'button button-small',
        attrs: { type: 'button', id: 'camera-export' },
        on: { click: () => hooks.exportCamera(this.format.value as CameraExportFormatId) },
      },
      [icon([...ICONS.download]), 'Make camera file'],
    );
    this.element = h('div', { className: 'camera-export', attrs: { role: 'group', 'aria-labelledby': 'camera-export-title' } }, [
      h('h3', { className: 'subsection-title', attrs: { id: 'camera-export-title' }, text: 'Camera for other tools' }),
      h('div', { className: 'field' }, [
        h('label', { className: 'field-label', attrs: { for: 'camera-export-format' }, text: 'Camera file' }),
        this.format,
      ]),
      this.button,
      this.download,
      h('p', {
        className: 'hint',
        text: `The Source's camera at the frame rate above, frame for frame as a render draws it${
          framed ? ', handed to the page around the studio' : ''
        }.`,
      }),
    ]);
  }

  /** Unframed: the exported file as a link (a new export replaces the last one's URL). */
  offerDownload(url: string, fileName: string): void {
    this.download.href = url;
    this.download.download = fileName;
    this.download.replaceChildren(icon([...ICONS.download]), `Download ${fileName}`);
    this.download.hidden = false;
  }
}
