import { EditTurn, SceneState } from '@app/operations';
import { DomainError, ErrorCode } from '@app/core';
import { EMBED_MODES, EmbedMode } from './embed-session.entity';
import { SessionWithScene } from './embed-sessions.repository';
import { StudioEvent, StudioView } from './studio-view';

const MARKER = 'QX7-MARKER';

const scene: SceneState = {
  id: 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
  deleted: false,
  status: 'ready',
  version: 2,
  sourceAssetId: null,
  progress: null,
  stage: null,
  error: null,
};

const turn: EditTurn = {
  operationId: 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
  instruction: `add fog ${MARKER}`,
  revertTo: null,
  status: 'succeeded',
  version: 2,
  error: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  completedAt: '2026-01-01T00:00:01.000Z',
};

const spec = {
  schemaVersion: 1,
  prompt: `A lake ${MARKER}`,
  sky: { top: '#000000', horizon: '#111111' },
  cameras: [],
  edits: [{ version: 2, instruction: turn.instruction, changes: [] }],
};

const events: StudioEvent[] = [
  { type: 'scene.status', data: { status: 'ready', version: 2, progress: null, stage: null, error: null } },
  { type: 'edit.updated', data: { turns: [turn] } },
  { type: 'session.updated', data: { expiresAt: '2026-01-01T01:00:00.000Z' } },
  { type: 'session.ended', data: { reason: 'revoked' } },
];

const found = (mode: EmbedMode): SessionWithScene => ({
  session: {
    id: 'es_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
    organizationId: 'org_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
    sceneId: scene.id,
    origin: 'https://acme.example',
    mode,
    theme: { partnerName: null, accentColor: '#4f8cff', colorScheme: 'dark', helpText: null },
    secretHash: 'h',
    createdAt: new Date(0),
    expiresAt: new Date(3_600_000),
    revokedAt: null,
    revokedReason: null,
  },
  scene,
});

describe(StudioView.name, () => {
  it('perform receives no authoring data, from any route or event', () => {
    const sut = StudioView.of('perform');
    expect(sut.authoring).toBe(false);
    expect(JSON.stringify(sut.spec(spec))).not.toContain(MARKER);
    expect(sut.spec(spec)).toEqual({ schemaVersion: 1, sky: spec.sky, cameras: [] });
    expect(() => sut.editHistory([turn])).toThrow(DomainError);
    expect(() => sut.editHistory([turn])).toThrow(expect.objectContaining({ code: ErrorCode.Forbidden }));
    expect(sut.receives('edit.updated')).toBe(false);
    expect(events.map((e) => sut.event(e))).toEqual([events[0], null, events[2], events[3]]);
  });

  it.each<EmbedMode>(['edit', 'edit_and_perform'])('%s receives it all', (mode) => {
    const sut = StudioView.of(mode);
    expect(sut.authoring).toBe(true);
    expect(sut.spec(spec)).toBe(spec);
    expect(sut.editHistory([turn])).toEqual({ turns: [turn] });
    expect(events.map((e) => sut.event(e))).toEqual(events);
  });

  it.each(EMBED_MODES)('%s: the session answer is the same shape in every mode', (mode) => {
    expect(StudioView.of(mode).session(found(mode))).toEqual({
      embedSessionId: 'es_01JD3Z8Q4W6K2M9T5X7B1C0VHE',
      mode,
      origin: 'https://acme.example',
      expiresAt: '1970-01-01T01:00:00.000Z',
      theme: { partnerName: null, accentColor: '#4f8cff', colorScheme: 'dark', helpText: null },
      capabilities: { edit: mode !== 'perform', perform: mode !== 'edit' },
      scene: { status: 'ready', version: 2, hasSourceImage: false, progress: null, stage: null, error: null },
    });
  });

  it('refuses a mode it does not know', () => {
    expect(() => StudioView.of('admin' as EmbedMode)).toThrow(/no studio view/);
  });
});
