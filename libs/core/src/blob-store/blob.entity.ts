import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One blob of the default store (PostgresBlobStore). */
@Entity('blobs')
export class BlobEntity {
  @PrimaryColumn('text')
  key: string;

  @Column('bytea')
  content: Buffer;

  @Column({ name: 'content_type', type: 'text' })
  contentType: string;

  @Column({ name: 'size_bytes', type: 'integer' })
  sizeBytes: number;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;
}
