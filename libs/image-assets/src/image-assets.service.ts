import { BlobStore, Clock, DomainError, IdGenerator, MetricsService, sha256Hex, Tx } from '@app/core';
import { UsageService } from '@app/tenancy';
import { Injectable, Logger } from '@nestjs/common';
import { ExpiredImageAssetResponse, ImageAssetResponse } from './dto/image-asset.response';
import { ImageAssetEntity, ImageFormat } from './image-asset.entity';
import { ImageAssetErrors, sceneSourceReasons } from './image-assets.errors';
import { ImageAssetsRepository } from './image-assets.repository';
import { detectImageFormat } from './image-format';
import { dimensionsExceeded, sceneSourceRulesBroken, UNATTACHED_LIFETIME_MS } from './image-rules';
import { ImageDecodeError, ImageHeader, ImageMedia, ImageTooLargeToTurnError } from './media/image-media';
import { needsUpright, stripMetadata, uprightEncoding } from './metadata/stored-image';
import { StripOptions } from './metadata/strip-result';
import { ImageAssetIdPrefix } from './image-assets.ids';

const MIME: Record<ImageFormat, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

export interface UploadResult {
  asset: ImageAssetResponse;
  /** Server-side validation time, reported to the caller in Server-Timing. */
  validationMs: number;
}

@Injectable()
export class ImageAssetsService {
  private readonly logger = new Logger(ImageAssetsService.name);
  private readonly validationSeconds;

  constructor(
    private readonly assets: ImageAssetsRepository,
    private readonly media: ImageMedia,
    private readonly blobs: BlobStore,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly usage: UsageService,
    metrics: MetricsService,
  ) {
    this.validationSeconds = metrics.histogram(
      'image_validation_duration_seconds',
      'Validation time of uploaded images',
      ['outcome'] as const,
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    );
  }

  /**
   * Validates the bytes and makes the copy to store (see `prepare`), then stores it and the
   * asset in one transaction. `sha256` and `sizeBytes` describe the bytes the partner uploaded;
   * usage counts the bytes stored. `bytes` is spent: the stored copy may be made in its memory.
   */
  async upload(organizationId: string, bytes: Buffer): Promise<UploadResult> {
    const sha256 = sha256Hex(bytes);
    const sizeBytes = bytes.length;
    const started = performance.now();
    const end = this.validationSeconds.startTimer();
    let prepared;
    try {
      prepared = await this.prepare(bytes);
      end({ outcome: 'accepted' });
    } catch (e) {
      end({ outcome: 'refused' });
      throw e;
    }
    const validationMs = performance.now() - started;
    const { header, stored } = prepared;

    const now = this.clock.now();
    const id = this.ids.generate(ImageAssetIdPrefix.ImageAsset);
    const entity: ImageAssetEntity = {
      id,
      organizationId,
      format: header.format,
      width: header.width,
      height: header.height,
      sizeBytes,
      sha256,
      status: 'unattached',
      blobKey: `image-assets/${id}`,
      createdAt: now,
      expiresAt: new Date(now.getTime() + UNATTACHED_LIFETIME_MS),
      attachedAt: null,
    };
    await this.assets.transaction(async (tx) => {
      await this.blobs.put(entity.blobKey, stored, MIME[entity.format], tx);
      await this.assets.insert(entity, tx);
      await this.usage.stored(tx, organizationId, stored.length, now);
    });
    return { asset: toResponse(entity), validationMs };
  }

  /** 404 for unknown, another organization's and expired assets alike. */
  async get(organizationId: string, id: string): Promise<ImageAssetResponse | null> {
    const asset = await this.assets.findAvailable(organizationId, id, this.clock.now());
    return asset ? toResponse(asset) : null;
  }

  /**
   * Test mode's clock: an unattached asset expires now, exactly as if its 24 hours had passed
   * (404 from here on, refused as a scene source, erased by the sweeper). Only the HTTP app knows
   * who may call it (test organizations). 404 for unknown, foreign, expired and attached assets.
   */
  async expireNow(organizationId: string, id: string): Promise<ExpiredImageAssetResponse> {
    const expiresAt = await this.assets.expireNow(organizationId, id, this.clock.now());
    if (!expiresAt) throw DomainError.notFound();
    return { imageAssetId: id, expiresAt: expiresAt.toISOString() };
  }

  /**
   * Attaches an asset to a scene inside the caller's transaction: it must be the
   * organization's, not expired at `now`, and usable as a scene source. Once attached it is kept.
   */
  async attachForScene(tx: Tx, organizationId: string, id: string, now: Date): Promise<ImageAssetEntity> {
    const asset = await this.assets.lockAvailable(tx, organizationId, id, now);
    if (!asset) throw ImageAssetErrors.sourceNotFound();
    const [first, ...more] = sceneSourceRulesBroken(asset.width, asset.height);
    if (first) throw ImageAssetErrors.sourceUnusable(asset.width, asset.height, [first, ...more]);
    await this.assets.markAttached(tx, id, now);
    return { ...asset, status: 'attached', expiresAt: null, attachedAt: asset.attachedAt ?? now };
  }

  /** The stored bytes of an asset, for the worker and the studio (ownership is checked by the caller). */
  async readBytes(id: string): Promise<{ asset: ImageAssetEntity; bytes: Buffer; contentType: string } | null> {
    const asset = await this.assets.findById(id);
    if (!asset) return null;
    const blob = await this.blobs.get(asset.blobKey);
    return blob ? { asset, bytes: blob.bytes, contentType: blob.contentType } : null;
  }

  /**
   * Validates the bytes in docs/api.md's order (signature, header dimensions, full decode) and
   * makes the copy to store: its metadata removed, and its orientation applied to the pixels when
   * it has one (metadata/stored-image.ts). A file whose structure cannot be walked is refused
   * before anything else is done with it, re-encoded or not. `bytes` is spent once its headers
   * are read. The full decode, and a header read that must find the upright dimensions and no
   * orientation, are of that copy: what the studio serves and providers receive is known to decode.
   */
  private async prepare(bytes: Buffer): Promise<{ header: ImageHeader; stored: Buffer }> {
    const detected = detectImageFormat(bytes);
    if (!detected.format) throw ImageAssetErrors.unsupportedFormat(detected.other);
    const header = await decoding(() => this.media.readHeader(bytes));
    // The signature and the decoder must agree, or the file is something dressed up as an image.
    if (header.format !== detected.format) throw ImageAssetErrors.corrupt();
    if (dimensionsExceeded(header.width, header.height)) throw ImageAssetErrors.dimensionsExceeded(header.width, header.height);

    let upright = bytes;
    if (needsUpright(header.orientation)) {
      // The upload itself is walked first (its stripped copy dropped): the same files are refused
      // whether or not they have to be turned, and before the costly re-encode.
      await this.strip(header.format, bytes, {});
      upright = await decoding(() => this.media.upright(bytes, uprightEncoding(header.format, bytes))).catch((e: unknown) => {
        throw e instanceof ImageTooLargeToTurnError ? ImageAssetErrors.tooLargeToTurn(header.width, header.height, e.maxPixels) : e;
      });
    }
    // In place: the upload's buffer (or the re-encode's) becomes the stored copy, so an upload
    // in flight holds one buffer of its size, not two. A re-encode's compressed data is our own
    // encoder's, with nothing planted in it: it is not decoded to its end again.
    const stripped = await this.strip(header.format, upright, { inPlace: true, ownEncoding: upright !== bytes });
    const stored = await decoding(() => this.media.readHeader(stripped));
    const kept =
      stored.format === header.format &&
      stored.width === header.width &&
      stored.height === header.height &&
      stored.orientation === 1 &&
      (stored.icc && header.icc ? stored.icc.equals(header.icc) : stored.icc === header.icc);
    // Our failure, not the upload's: a 500 (logged with this message), never a copy that breaks the documented metadata rules.
    if (!kept) {
      throw new Error(
        `the stored copy of a ${header.format} upload reads as ${stored.format} ${stored.width}×${stored.height} ` +
          `orientation ${stored.orientation} with ${stored.icc ? 'a' : 'no'} profile, not ${header.width}×${header.height} upright with ` +
          `${header.icc ? 'its' : 'no'} profile`,
      );
    }
    await decoding(() => this.media.decodeFully(stripped));
    return { header, stored: stripped };
  }

  /** The bytes to store of `bytes` (metadata/stored-image.ts); `image_corrupt` when their structure cannot be walked. */
  private async strip(format: ImageFormat, bytes: Buffer, options: StripOptions): Promise<Buffer> {
    const stripped = await stripMetadata(format, bytes, options);
    if (!stripped.ok) {
      this.logger.debug(`refused a ${format} upload: ${stripped.reason}`);
      throw ImageAssetErrors.corrupt();
    }
    return stripped.bytes;
  }
}

/** Runs a codec call, answering its ImageDecodeError as `image_corrupt`. */
async function decoding<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ImageDecodeError) throw ImageAssetErrors.corrupt();
    throw e;
  }
}

export function toResponse(a: ImageAssetEntity): ImageAssetResponse {
  const broken = sceneSourceRulesBroken(a.width, a.height);
  return {
    imageAssetId: a.id,
    format: a.format,
    width: a.width,
    height: a.height,
    sizeBytes: a.sizeBytes,
    sha256: a.sha256,
    status: a.status,
    usableAsSceneSource: broken.length === 0,
    unusableReasons: sceneSourceReasons(a.width, a.height, broken),
    createdAt: a.createdAt.toISOString(),
    expiresAt: a.expiresAt ? a.expiresAt.toISOString() : null,
  };
}
