import { Column, Entity, PrimaryColumn } from 'typeorm';

export const EMBED_MODES = ['edit', 'perform', 'edit_and_perform'] as const;
export type EmbedMode = (typeof EMBED_MODES)[number];

export interface EmbedTheme {
  partnerName: string | null;
  accentColor: string;
  colorScheme: 'dark' | 'light';
  helpText: string | null;
}

@Entity('embed_sessions')
export class EmbedSessionEntity {
  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId: string;

  @Column({ name: 'scene_id', type: 'text' })
  sceneId: string;

  /** The exact serialized origin the studio may be framed by. */
  @Column('text')
  origin: string;

  /** Fixed at creation: nothing changes it afterwards. */
  @Column('text')
  mode: EmbedMode;

  @Column('jsonb')
  theme: EmbedTheme;

  /** SHA-256 of the URL's secret; the secret itself is never stored. */
  @Column({ name: 'secret_hash', type: 'text' })
  secretHash: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @Column({ name: 'revoked_reason', type: 'text', nullable: true })
  revokedReason: 'revoked' | 'scene_deleted' | null;

  /** When its end was announced (`embed_session.ended`), so it is announced once. */
  @Column({ name: 'end_reported_at', type: 'timestamptz', nullable: true })
  endReportedAt?: Date | null;
}

/** What each mode may do; the studio API checks this on every call. */
export function capabilitiesOf(mode: EmbedMode): { edit: boolean; perform: boolean } {
  return { edit: mode === 'edit' || mode === 'edit_and_perform', perform: mode === 'perform' || mode === 'edit_and_perform' };
}

export const DEFAULT_THEME: EmbedTheme = { partnerName: null, accentColor: '#4f8cff', colorScheme: 'dark', helpText: null };
