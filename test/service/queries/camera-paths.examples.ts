import { summaryOf } from '@app/camera-paths/camera-path-rules';
import { CameraPathEntity } from '@app/camera-paths/camera-path.entity';
import { CameraPathChange, CameraPathScope, CameraPathsRepository } from '@app/camera-paths/camera-paths.repository';
import type { CameraPathDocument, CameraPathKind } from '@scene-studio/camera-path';
import { randomUUID } from 'node:crypto';
import { moveDocument, viewDocument } from '../../factories/camera-path.factory';
import { examplesOf, Fixtures, RepositoryExamples } from './examples';

/** Paths these examples save on the fixtures' scene: an authored move and a view. */
const ids = { move: `cam_q_${randomUUID()}`, view: `cam_q_${randomUUID()}` };

const scope = (f: Fixtures): CameraPathScope => ({ organizationId: f.organizationId, sceneId: f.sceneId });

/** A name and document with their summary, as CameraPathsService's checkedChange makes them. */
function change(name: string, document: CameraPathDocument): CameraPathChange {
  return { name, document, documentJson: JSON.stringify(document), ...summaryOf(document) };
}

/** A new path as CameraPathsService.create builds it, with its document's JSON text. */
function created(f: Fixtures, id: string, kind: CameraPathKind, name: string, document: CameraPathDocument): [CameraPathEntity, string] {
  const { documentJson, ...columns } = change(name, document);
  return [{ id, organizationId: f.organizationId, sceneId: f.sceneId, kind, ...columns, createdAt: f.now, updatedAt: f.now }, documentJson];
}

const move = moveDocument(3) as unknown as CameraPathDocument;
const view = viewDocument() as unknown as CameraPathDocument;

export const cameraPathsExamples: RepositoryExamples<unknown>[] = [
  examplesOf<CameraPathsRepository>({
    type: CameraPathsRepository,
    make: (db) => new CameraPathsRepository(db),
    calls: {
      transaction: (r) => r.transaction(async () => undefined),
      // The create's transaction counts the scene's paths, then saves the new one.
      countForScene: (r, tx, f) => r.countForScene(tx, scope(f)),
      insert: async (r, tx, f) => {
        await r.insert(tx, ...created(f, ids.move, 'path', 'Dolly in', move));
        await r.insert(tx, ...created(f, ids.view, 'view', 'Front door', view));
      },
      // Every path of the scene, then its views only (the list's `kind` filter).
      list: async (r, _tx, f) => {
        await r.list(scope(f));
        await r.list(scope(f), 'view');
      },
      find: (r, _tx, f) => r.find(scope(f), ids.move),
      // An update: the kind read first, then the new name and document.
      kindOf: (r, _tx, f) => r.kindOf(scope(f), ids.move),
      update: (r, _tx, f) => r.update(scope(f), ids.move, change('Slow dolly in', move), f.now),
      delete: (r, _tx, f) => r.delete(scope(f), ids.view),
      // The scene's deletion hook: what is left of its paths goes with it.
      deleteForScene: (r, tx, f) => r.deleteForScene(tx, scope(f)),
    },
  }),
];
