import { movePoseOf, type MovePose } from '../model/camera-move';

/** A camera pose saved under a name ("save this view as a preset"). */
export interface SavedView {
  id: string;
  name: string;
  pose: MovePose;
}

/**
 * Where saved views live. The studio codes against this; the page uses the server's store
 * (`ServerSavedViewStore`: camera paths of `kind: "view"` on the studio API, per scene), and the
 * in-memory store below keeps views where there is no server (unit specs).
 */
export interface SavedViewStore {
  list(): Promise<SavedView[]>;
  save(name: string, pose: MovePose): Promise<SavedView>;
  remove(id: string): Promise<void>;
}

export const VIEW_NAME_MAX = 60;

/** A view's name as typed: trimmed, inner runs of spaces folded; null when empty or too long. */
export function normalizeViewName(text: string): string | null {
  const name = text.trim().replace(/\s+/g, ' ');
  return name.length === 0 || name.length > VIEW_NAME_MAX ? null : name;
}

export class InMemorySavedViewStore implements SavedViewStore {
  private readonly views: SavedView[] = [];
  private next = 1;

  list(): Promise<SavedView[]> {
    return Promise.resolve(this.views.map(copyView));
  }

  save(name: string, pose: MovePose): Promise<SavedView> {
    const view: SavedView = { id: `view-${this.next++}`, name, pose: movePoseOf(pose) };
    this.views.push(view);
    return Promise.resolve(copyView(view));
  }

  remove(id: string): Promise<void> {
    const index = this.views.findIndex((v) => v.id === id);
    if (index !== -1) this.views.splice(index, 1);
    return Promise.resolve();
  }
}

export function copyView(view: SavedView): SavedView {
  return { ...view, pose: movePoseOf(view.pose) };
}
