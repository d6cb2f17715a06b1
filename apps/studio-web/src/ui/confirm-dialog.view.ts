import { h } from './dom';

export interface ConfirmOptions {
  title: string;
  message: string;
  /** The button that goes ahead: "Discard and load". */
  confirm: string;
  /** The button that keeps things as they are: "Keep editing". */
  cancel: string;
}

/**
 * An in-page confirmation: a modal `<dialog>` (the browser traps focus in it, Escape cancels, and
 * it is announced as a dialog with its title and message), focus on the safe choice first and
 * back where it was afterwards. Resolves true only when the user chose to go ahead.
 */
export function confirmInPage(options: ConfirmOptions, parent: HTMLElement = document.body): Promise<boolean> {
  const returnFocus = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const titleId = 'confirm-dialog-title';
  const messageId = 'confirm-dialog-message';
  const cancel = h('button', { className: 'button', attrs: { type: 'button', value: 'cancel', autofocus: true }, text: options.cancel });
  const confirm = h('button', { className: 'button button-primary', attrs: { type: 'button', value: 'confirm' }, text: options.confirm });
  const dialog = h(
    'dialog',
    { className: 'confirm-dialog', attrs: { id: 'confirm-dialog', 'aria-labelledby': titleId, 'aria-describedby': messageId } },
    [
      h('h2', { className: 'panel-title', attrs: { id: titleId }, text: options.title }),
      h('p', { attrs: { id: messageId }, text: options.message }),
      h('div', { className: 'confirm-dialog-actions' }, [cancel, confirm]),
    ],
  );
  parent.append(dialog);
  return new Promise<boolean>((resolve) => {
    const finish = (answer: boolean) => {
      if (dialog.open) dialog.close();
      dialog.remove();
      returnFocus?.focus();
      resolve(answer);
    };
    cancel.addEventListener('click', () => finish(false));
    confirm.addEventListener('click', () => finish(true));
    // Escape: the browser fires `cancel` and closes; the answer is no.
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      finish(false);
    });
    dialog.showModal();
    cancel.focus();
  });
}
