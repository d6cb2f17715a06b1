import { Column, Entity, PrimaryColumn } from 'typeorm';

export type ImageFormat = 'png' | 'jpeg' | 'webp';
export type ImageAssetStatus = 'unattached' | 'attached';

@Entity('image_assets')
export class ImageAssetEntity {
  @PrimaryColumn('text')
  id: string;

  @Column({ name: 'organization_id', type: 'text' })
  organizationId: string;

  @Column('text')
  format: ImageFormat;

  /** As displayed, i.e. after the EXIF orientation is applied. */
  @Column('integer')
  width: number;

  @Column('integer')
  height: number;

  @Column({ name: 'size_bytes', type: 'integer' })
  sizeBytes: number;

  @Column('text')
  sha256: string;

  @Column('text')
  status: ImageAssetStatus;

  @Column({ name: 'blob_key', type: 'text' })
  blobKey: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** Null once attached: attached assets are kept. */
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'attached_at', type: 'timestamptz', nullable: true })
  attachedAt: Date | null;
}
